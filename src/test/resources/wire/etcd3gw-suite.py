# Runs Debian's python3-etcd3gw functional tests (etcd3gw.tests.test_etcd3gw, OpenStack's client of
# the JSON gateway) against the gateway on PORT. The suite dials localhost:2379 and its client's
# default path is /v3alpha/, which etcd 3.4 answers with 404: both defaults are changed here before
# it loads, nothing else. Prints as unittest_outcomes.py does.
# Usage: /usr/bin/python3 etcd3gw-suite.py PORT
import sys

import etcd3gw.client  # noqa: F401 (the module, shadowed by its function of the same name)
import urllib3

import unittest_outcomes

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

unittest_outcomes.run(test_etcd3gw)
