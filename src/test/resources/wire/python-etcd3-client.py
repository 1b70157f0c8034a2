# One scenario through Debian's python3-etcd3 (python-etcd3 0.12, a gRPC client), printed on
# stdout as a transcript of JSON lines, a step each: revisions, values, events, the client's
# exception classes and gRPC codes with their texts. Lease and member ids are left out or counted,
# so that the transcripts of two fresh servers compare equal.
# Usage: /usr/bin/python3 python-etcd3-client.py HOST PORT CA_FILE (TLS: the client sends a token
# only over a secure channel)
import io
import json
import os
import sys
import threading
import traceback

import etcd3
import grpc

host, port, ca = sys.argv[1], int(sys.argv[2]), sys.argv[3]
transcript = []


def note(step, value=None):
    transcript.append([step, value])


def failure(e):
    if isinstance(e, grpc.RpcError):
        return 'RpcError %s: %s' % (e.code().name, e.details())
    return '%s: %s' % (type(e).__name__, e)


def attempt(step, fn):
    try:
        note(step, fn())
    except Exception as e:  # the client's exception, as its user sees it
        note(step, failure(e))


def text(b):
    return None if b is None else b.decode()


def kv(client):
    first = client.put('foo', 'bar').header.revision
    note('put foo', first)
    value, meta = client.get('foo')
    note('get foo', [text(value), meta.create_revision, meta.mod_revision, meta.version])
    note('get missing', list(map(text, client.get('missing'))))
    for k in ['k1', 'k2', 'k3']:
        client.put(k, 'v-' + k)
    note('k* descending', [text(m.key) for _, m in client.get_prefix('k', sort_order='descend')])
    note('range k1..k3', [text(v) for v, _ in client.get_range('k1', 'k3')])
    note('put foo, previous', text(client.put('foo', 'baz', prev_kv=True).prev_kv.value))
    note('put if not exists', [client.put_if_not_exists('foo', 'x'), client.put_if_not_exists('new', 'x')])
    note('replace', [client.replace('foo', 'baz', 'qux'), client.replace('foo', 'baz', 'quux')])
    t = client.transactions
    ok, responses = client.transaction(compare=[t.value('foo') == 'qux', t.version('foo') > 0],
                                       success=[t.put('foo', 'txn'), t.get('k1')], failure=[])
    note('txn', [ok, [text(v) for v, _ in responses[1]]])
    ok, responses = client.transaction(compare=[t.value('foo') == 'qux'], success=[], failure=[t.get('foo')])
    note('txn that fails', [ok, [text(v) for v, _ in responses[0]]])
    note('delete k1', client.delete('k1'))
    note('delete missing', client.delete('k1'))
    note('delete k*', client.delete_prefix('k').deleted)
    return first


def leases(client):
    lease = client.lease(30)
    client.put('leased', 'v', lease=lease)
    note('lease', [lease.granted_ttl, lease.remaining_ttl > 25, [text(k) for k in lease.keys]])
    note('refresh', [r.TTL for r in lease.refresh()])
    lease.revoke()
    note('leased after revoke', list(map(text, client.get('leased'))))
    attempt('lease info after revoke', lambda: client.get_lease_info(lease.id).TTL)
    attempt('put with a revoked lease', lambda: client.put('x', 'y', lease=lease.id).header.revision)


def watches(client, first):
    events = []
    done = threading.Event()

    def callback(response):
        for e in response.events:
            events.append([type(e).__name__, text(e.key), text(e.value), e.mod_revision])
        if len(events) >= 3:
            done.set()

    watch_id = client.add_watch_prefix_callback('w/', callback)
    client.put('w/a', '1')
    client.put('w/a', '2')
    client.delete('w/a')
    note('watch w/', events if done.wait(10) else 'only %s' % events)
    client.cancel_watch(watch_id)
    history, cancel = client.watch('foo', start_revision=first)
    seen = []
    for e in history:
        seen.append([type(e).__name__, text(e.value), e.mod_revision])
        if len(seen) == 4:
            break
    cancel()
    note('watch foo from its first revision', seen)
    note('watch once', text(client.watch_once('foo', timeout=5, start_revision=first).value))


def compaction(client, first):
    now = client.put('compact-here', '1').header.revision
    client.compact(now, physical=True)
    request = etcd3.etcdrpc.RangeRequest(key=b'foo', revision=first)
    attempt('get foo at a compacted revision', lambda: client.kvstub.Range(request, 10).count)
    answers = []
    done = threading.Event()
    watch_id = client.add_watch_callback('foo', lambda r: (answers.append(r), done.set()), start_revision=first)
    done.wait(10)
    note('watch from a compacted revision',
         [[type(a).__name__, getattr(a, 'compacted_revision', None)] for a in answers])
    client.cancel_watch(watch_id)


def locks(client):
    # python3-etcd3 0.12's wait between tries fails with Debian's tenacity: no contended acquire here
    lock = client.lock('the-lock', ttl=10)
    note('acquire', lock.acquire(timeout=5))
    note('lock key', [len(list(client.get_prefix('/locks/the-lock'))), lock.is_acquired()])
    note('release', lock.release())
    note('acquire after release', lock.acquire(timeout=5))
    lock.release()


def maintenance(client):
    members = list(client.members)
    note('members', [[len(m.peer_urls), len(m.client_urls)] for m in members])
    status = client.status()
    note('status', [status.db_size > 0, status.leader.id == members[0].id])
    note('alarms', list(client.list_alarms()))
    image = io.BytesIO()
    client.snapshot(image)
    note('snapshot', len(image.getvalue()) > 0)
    note('defragment', type(client.defragment()).__name__)


def auth(client):
    rpc = etcd3.etcdrpc
    stub = rpc.AuthStub(client.channel)
    stub.RoleAdd(rpc.AuthRoleAddRequest(name='root'))
    stub.UserAdd(rpc.AuthUserAddRequest(name='root', password='root-pw'))
    stub.UserGrantRole(rpc.AuthUserGrantRoleRequest(user='root', role='root'))
    stub.AuthEnable(rpc.AuthEnableRequest())
    attempt('no credentials', lambda: client.get('foo'))
    attempt('wrong password', lambda: etcd3.client(host, port, ca_cert=ca, user='root', password='nope'))
    root = etcd3.client(host, port, ca_cert=ca, user='root', password='root-pw', timeout=10)
    note('root reads foo', text(root.get('foo')[0]))
    events = []
    done = threading.Event()
    watch_id = root.add_watch_callback('foo', lambda r: (events.extend(text(e.value) for e in r.events), done.set()))
    root.put('foo', 'as root')
    note('root watches foo', events if done.wait(10) else 'no event')
    root.cancel_watch(watch_id)
    rpc.AuthStub(root.channel).AuthDisable(rpc.AuthDisableRequest(), metadata=root.metadata)
    note('after auth disable', text(client.get('foo')[0]))


client = etcd3.client(host, port, ca_cert=ca, timeout=10)
try:
    first_revision = kv(client)
    leases(client)
    watches(client, first_revision)
    compaction(client, first_revision)
    locks(client)
    maintenance(client)
    auth(client)
except Exception as e:
    note('aborted', failure(e) + '\n' + traceback.format_exc())
sys.stdout.write(''.join(json.dumps(step) + '\n' for step in transcript))
sys.stdout.flush()
os._exit(0)  # the watcher's thread does not end the process by itself
