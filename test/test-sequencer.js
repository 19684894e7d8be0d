const Sequencer = require('@jest/test-sequencer').default;

/**
 * Runs test files in one fixed order (by path) instead of jest's history-based order, so a run
 * can be repeated exactly; the process-killing crash test goes last, so no other file ever runs
 * right after it in the same jest process (twice a set-up hung in the file that followed it).
 */
class FixedOrderSequencer extends Sequencer {
  sort(tests) {
    const last = (test) => (/worker-crash/.test(test.path) ? 1 : 0);
    return [...tests].sort((a, b) => last(a) - last(b) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}

module.exports = FixedOrderSequencer;
