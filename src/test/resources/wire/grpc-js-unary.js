// Sequential unary KV.Range calls on one grpc-js channel; prints "OK <n>" or "FAIL ..." and exits 1.
// Usage: node grpc-js-unary.js <protobuf dir> <host:port> <calls>
const grpc = require('@grpc/grpc-js');
const loader = require('@grpc/proto-loader');

const [protoDir, endpoint, callsArg] = process.argv.slice(2);
const calls = Number(callsArg);
const proto = grpc.loadPackageDefinition(loader.loadSync('etcdserverpb/rpc.proto',
    {includeDirs: [protoDir], keepCase: true, longs: String, enums: String, defaults: true}));
const kv = new proto.etcdserverpb.KV(endpoint, grpc.credentials.createInsecure());

let done = 0;
function next() {
  if (done === calls) {
    console.log('OK ' + done);
    kv.close();
    return;
  }
  kv.Range({key: Buffer.from('wire-test')}, {deadline: Date.now() + 10000}, (err, res) => {
    if (err) {
      console.log('FAIL after ' + done + ' calls: ' + err.code + ' ' + err.details);
      process.exit(1);
    }
    if (!res.header || res.header.revision === '0') {
      console.log('FAIL: no header in answer ' + done + ': ' + JSON.stringify(res));
      process.exit(1);
    }
    done++;
    next();
  });
}
next();
