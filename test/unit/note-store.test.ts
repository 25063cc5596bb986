import { describe } from 'vitest';
import { createMemoryNoteStore } from '../../lib/adapters/memory/note-store.ts';
import { noteStoreContract } from '../support/note-store-contract.ts';

describe('createMemoryNoteStore', () => {
  // One store for every test, as the DynamoDB table is: the contract keeps owners apart itself.
  const store = createMemoryNoteStore();
  noteStoreContract(() => store);
});
