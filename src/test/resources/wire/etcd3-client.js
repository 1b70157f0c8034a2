// One scenario through npm's etcd3 client (the Node client etcd users have), printed on stdout as
// a transcript of JSON lines, a step each: revisions, values, events, the client's error classes
// and texts. Lease ids become names and member ids are left out, so that the transcripts of two
// fresh servers compare equal.
// Usage: node etcd3-client.js ENDPOINT_URL CA_FILE [CERT_FILE KEY_FILE]   (NODE_PATH: the modules)
'use strict';
const fs = require('fs');
const { Etcd3, Range } = require('etcd3');

const [url, caFile, certFile, keyFile] = process.argv.slice(2);
const credentials = { rootCertificate: fs.readFileSync(caFile) };
if (certFile) {
  credentials.certChain = fs.readFileSync(certFile);
  credentials.privateKey = fs.readFileSync(keyFile);
}
const options = extra => Object.assign({ hosts: url, credentials }, extra || {});
const transcript = [];
const ids = new Map();
const leaseName = id => {
  if (!ids.has(String(id))) ids.set(String(id), 'lease-' + (ids.size + 1));
  return ids.get(String(id));
};
const note = (step, value) => transcript.push([step, value === undefined ? null : value]);
const failure = e => `${e.constructor.name}: ${e.message}`;
async function attempt(step, fn) {
  try {
    note(step, await fn());
  } catch (e) {
    note(step, failure(e));
  }
}
const str = b => (b == null ? null : Buffer.from(b).toString());

/** Resolves once `count` events arrived on `watcher`, each as [type, key, value, previous value, mod revision]. */
function events(watcher, count) {
  const seen = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`only ${seen.length} of ${count} events: ${JSON.stringify(seen)}`)), 10000);
    const add = type => (kv, prev) => {
      seen.push([type, str(kv.key), str(kv.value), prev ? str(prev.value) : null, kv.mod_revision]);
      if (seen.length === count) {
        clearTimeout(timer);
        resolve(seen);
      }
    };
    watcher.on('put', add('put'));
    watcher.on('delete', add('delete'));
  });
}

async function kv(client) {
  const first = await client.put('foo').value('bar').exec();
  note('put foo', first.header.revision);
  note('get foo', await client.get('foo').string());
  note('get missing', await client.get('missing').string());
  for (const k of ['k1', 'k2', 'k3', 'k4', 'k5']) await client.put(k).value('v-' + k);
  note('count k*', await client.getAll().prefix('k').count());
  note('k* descending, limit 2', await client.getAll().prefix('k').sort('Key', 'Descend').limit(2).keys());
  note('k* as strings', await client.getAll().prefix('k').strings());
  const previous = await client.put('foo').value('baz').getPrevious();
  note('put foo, previous',
    [str(previous.key), str(previous.value), previous.create_revision, previous.mod_revision, previous.version]);
  note('get foo at its first revision', await client.get('foo').revision(first.header.revision).string());
  note('delete k1, previous', (await client.delete().key('k1').getPrevious()).map(p => [str(p.key), str(p.value)]));
  note('delete k*', (await client.delete().prefix('k').exec()).deleted);
  const cas = () => client.if('foo', 'Value', '==', 'baz')
    .then(client.put('foo').value('qux')).else(client.get('foo')).commit();
  const won = await cas();
  note('txn foo==baz', [won.succeeded, won.header.revision]);
  const lost = await cas();
  note('txn foo==baz again', [lost.succeeded, str(lost.responses[0].response_range.kvs[0].value)]);
  await attempt('put with an unknown lease', () => client.put('x').value('y').lease('123456789').exec());
  return first.header.revision;
}

async function leases(client) {
  const lease = client.lease(30, { autoKeepAlive: false });
  const id = await lease.grant();
  note('grant', leaseName(id));
  await lease.put('leased').value('v').exec();
  const ttl = await client.leaseClient.leaseTimeToLive({ ID: id, keys: true });
  note('time to live', [ttl.grantedTTL, ttl.keys.map(str), Number(ttl.TTL) > 25]);
  note('keep-alive once', Number((await lease.keepaliveOnce()).TTL));
  note('leases', (await client.leaseClient.leaseLeases({})).leases.map(l => leaseName(l.ID)));
  await lease.revoke();
  note('leased after revoke', await client.get('leased').string());
  await attempt('revoke again', () => client.leaseClient.leaseRevoke({ ID: id }));
}

async function watches(client, firstRevision) {
  const watcher = await client.watch().prefix('w/').withPreviousKV().create();
  const arriving = events(watcher, 3);
  await client.put('w/a').value('1');
  await client.put('w/a').value('2');
  await client.delete().key('w/a');
  note('watch w/ with previous values', await arriving);
  await watcher.cancel();
  const history = await client.watch().key('foo').startRevision(firstRevision).create();
  note('watch foo from its first revision', await events(history, 3));
  await history.cancel();
}

async function compaction(client, firstRevision) {
  const now = (await client.put('compact-here').value('1').exec()).header.revision;
  await client.kv.compact({ revision: now, physical: true });
  await attempt('get foo at a compacted revision', () => client.get('foo').revision(firstRevision).string());
  const future = String(Number(now) + 100);
  await attempt('get foo at a future revision', () => client.get('foo').revision(future).string());
}

async function locks(client) {
  const holder = await client.lock('the-lock').acquire();
  note('lock taken', (await client.getAll().prefix('the-lock').keys()).length);
  await attempt('lock taken twice', async () => (await client.lock('the-lock').acquire()) && 'acquired');
  await holder.release();
  const second = await client.lock('the-lock').acquire();
  note('lock after release', 'acquired');
  await second.release();
}

async function elections(client) {
  const other = new Etcd3(options());
  try {
    const election = client.election('the-election', 5);
    const a = await election.campaign('a').wait();
    note('leader after a', await election.leader());
    const b = other.election('the-election', 5).campaign('b');
    const bElected = b.wait();
    note('leader while b waits', await election.leader());
    await a.resign();
    await bElected;
    note('leader after a resigns', await election.leader());
    await b.resign();
    note('leader after both resign', (await election.leader()) ?? null);
  } finally {
    other.close();
  }
}

async function stm(client) {
  const increment = () => client.stm({ retries: 10 }).transact(tx =>
    tx.get('counter').string().then(v => tx.put('counter').value(String(Number(v || 0) + 1))));
  await Promise.all([increment(), increment(), increment()]);
  note('counter after three concurrent increments', await client.get('counter').string());
}

async function namespaces(client) {
  const ns = client.namespace('app/');
  await ns.put('x').value('1');
  note('app/x through the root', await client.get('app/x').string());
  note('keys in the namespace', await ns.getAll().keys());
}

async function cluster(client) {
  const members = (await client.cluster.memberList({})).members;
  note('members', members.map(m => [m.clientURLs.length, m.peerURLs.length, m.isLearner || false]));
  const status = await client.maintenance.status({});
  note('status', [Number(status.dbSize) > 0, status.leader === status.header.member_id]);
}

async function auth(client) {
  await client.role('root').create();
  await client.user('root').create('root-pw');
  await client.user('root').addRole('root');
  const reader = await client.role('reader').create();
  await reader.grant({ permission: 'Read', range: Range.prefix('pub/') });
  await client.user('alice').create('alice-pw');
  await client.user('alice').addRole('reader');
  await attempt('role twice', () => client.role('reader').create());
  await attempt('user twice', () => client.user('alice').create('x'));
  note('permissions', (await reader.permissions()).map(p => [p.permission, str(p.range.start), str(p.range.end)]));
  await client.auth.authEnable({});
  const root = new Etcd3(options({ auth: { username: 'root', password: 'root-pw' } }));
  const alice = new Etcd3(options({ auth: { username: 'alice', password: 'alice-pw' } }));
  const wrong = new Etcd3(options({ auth: { username: 'alice', password: 'nope' } }));
  try {
    note('root puts pub/x', Boolean((await root.put('pub/x').value('hello').exec()).header.revision));
    note('alice reads pub/x', await alice.get('pub/x').string());
    await attempt('alice writes pub/y', () => alice.put('pub/y').value('no').exec());
    await attempt('alice reads foo', () => alice.get('foo').string());
    await attempt('wrong password', () => wrong.get('pub/x').string());
    await attempt('no credentials', () => client.get('pub/x').string());
    await root.auth.authDisable({});
    note('after auth disable', await client.get('pub/x').string());
  } finally {
    root.close();
    alice.close();
    wrong.close();
  }
}

(async () => {
  const client = new Etcd3(options());
  try {
    const firstRevision = await kv(client);
    await leases(client);
    await watches(client, firstRevision);
    await compaction(client, firstRevision);
    await locks(client);
    await elections(client);
    await stm(client);
    await namespaces(client);
    await cluster(client);
    await auth(client);
  } catch (e) {
    note('aborted', failure(e) + '\n' + e.stack);
  } finally {
    client.close();
  }
  process.stdout.write(transcript.map(step => JSON.stringify(step)).join('\n') + '\n');
  process.exit(0);
})();
