# Runs a Python module's unittest tests and prints, after the runner's own report, one line per
# test, "OUTCOME <test id> <ok|failure|error|skipped|...>", then
# "RESULT run=N failures=N errors=N skipped=N". Usage: python3 unittest_outcomes.py MODULE
import importlib
import sys
import unittest


def flatten(suite):
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from flatten(test)
        else:
            yield test


def run(module):
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    outcomes = dict.fromkeys((test.id() for test in flatten(suite)), 'ok')
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(suite)
    for outcome, entries in (('failure', result.failures), ('error', result.errors),
                             ('skipped', result.skipped), ('expected-failure', result.expectedFailures)):
        for test, _ in entries:
            outcomes[test.id()] = outcome
    for test in result.unexpectedSuccesses:
        outcomes[test.id()] = 'unexpected-success'
    for test_id, outcome in sorted(outcomes.items()):
        print('OUTCOME', test_id, outcome)
    print('RESULT run=%d failures=%d errors=%d skipped=%d' % (
        result.testsRun, len(result.failures), len(result.errors), len(result.skipped)))
    sys.stdout.flush()


if __name__ == '__main__':
    run(importlib.import_module(sys.argv[1]))
