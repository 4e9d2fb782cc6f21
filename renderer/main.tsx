/** Renderer entry: picks the transport, builds the store, connects it to events, mounts the app. */
import './lib/zod-jitless.js';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createClient } from './client/index.js';
import { connectStore, createAppStore, StoreContext } from './store/app-store.js';
import { App } from './App.js';
import { SignInGate } from './features/signin/SignInGate.js';
import './styles.css';

// The desktop app first asks its shell which farm it works on (studio-mode transport or IPC).
void createClient().then((client) => {
  const store = createAppStore(client);
  connectStore(store, client);
  const root = document.getElementById('root');
  if (root) {
    createRoot(root).render(
      <StrictMode>
        <StoreContext.Provider value={store}>
          <SignInGate>
            <App />
          </SignInGate>
        </StoreContext.Provider>
      </StrictMode>,
    );
  }
});
