import { describe } from 'vitest';
import { createMemoryOwnerCounters } from '../../lib/adapters/memory/owner-counters.ts';
import { ownerCountersContract } from '../support/owner-counters-contract.ts';

describe('createMemoryOwnerCounters', () => {
  ownerCountersContract(createMemoryOwnerCounters);
});
