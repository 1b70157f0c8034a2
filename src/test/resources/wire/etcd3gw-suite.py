# Runs Debian's python3-etcd3gw functional tests (etcd3gw.tests.test_etcd3gw, OpenStack's client of
# the JSON gateway) against the gateway on PORT. The suite dials localhost:2379 and its client's
# default path is /v3alpha/, which etcd 3.4 answers with 404: both defaults are changed here before
# it loads, nothing else. Prints the runner's report, then one line:
# RESULT run=N failures=N errors=N skipped=N
# Usage: /usr/bin/python3 etcd3gw-suite.py PORT
import sys
import unittest

import urllib3

import etcd3gw.client  # noqa: F401 (the module, shadowed by its function of the same name)

port = int(sys.argv[1])
module = sys.modules['etcd3gw.client']
defaults = list(module.Etcd3Client.__init__.__defaults__)  # host, port, ..., api_path
defaults[1], defaults[-1] = port, '/v3/'
module.Etcd3Client.__init__.__defaults__ = tuple(defaults)
defaults = list(module.client.__defaults__)
defaults[1] = port
module.client.__defaults__ = tuple(defaults)

# the suite's "is etcd running" probe, made while its module loads, asks 127.0.0.1:2379
request = urllib3.PoolManager.request
urllib3.PoolManager.request = lambda self, method, url, *a, **k: request(
    self, method, url.replace(':2379', ':%d' % port), *a, **k)
from etcd3gw.tests import test_etcd3gw  # noqa: E402
urllib3.PoolManager.request = request

result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(
    unittest.defaultTestLoader.loadTestsFromModule(test_etcd3gw))
print('RESULT run=%d failures=%d errors=%d skipped=%d' % (
    result.testsRun, len(result.failures), len(result.errors), len(result.skipped)))
