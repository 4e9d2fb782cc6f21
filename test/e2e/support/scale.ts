/** Studio-sized data in a second, for the layout tests: many copies of one job written straight into the store (test/helpers/job-copies.ts, shared with the screenshot tour). */
export { copyJob as copies } from '../../helpers/job-copies.js';
