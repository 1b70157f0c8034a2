package io.akkaetcd.concurrency;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.etcdserverpb.Compare;
import io.akkaetcd.proto.etcdserverpb.PutRequest;
import io.akkaetcd.proto.etcdserverpb.RangeRequest;
import io.akkaetcd.proto.etcdserverpb.RequestOp;
import io.akkaetcd.proto.etcdserverpb.TxnRequest;

/** Key layout and reads shared by the recipes, as clientv3/concurrency builds them. */
final class Keys {
  private static final ByteString SLASH = ByteString.copyFromUtf8("/");

  private Keys() {}

  /** A contender's key: {@code prefix} + the lease id in lower-case hex (Go's {@code %x}). */
  static ByteString contender(ByteString prefix, long lease) {
    return prefix.concat(ByteString.copyFromUtf8(Long.toString(lease, 16)));
  }

  /** {@code name + "/"}: the prefix every contender's key of {@code name} starts with. */
  static ByteString prefix(ByteString name) {
    return name.concat(SLASH);
  }

  /** The end of the range of keys starting with {@code prefix} (clientv3.GetPrefixRangeEnd). */
  static ByteString rangeEnd(ByteString prefix) {
    byte[] end = prefix.toByteArray();
    for (int i = end.length - 1; i >= 0; i--) {
      if (end[i] != (byte) 0xff) {
        end[i]++;
        return ByteString.copyFrom(end, 0, i + 1);
      }
    }
    return ByteString.copyFrom(new byte[] {0}); // no upper bound: every key from prefix on
  }

  /** clientv3.WithFirstCreate: the key under {@code prefix} with the lowest create revision. */
  static RangeRequest firstCreated(ByteString prefix) {
    return RangeRequest.newBuilder().setKey(prefix).setRangeEnd(rangeEnd(prefix)).setLimit(1)
        .setSortTarget(RangeRequest.SortTarget.CREATE).setSortOrder(RangeRequest.SortOrder.ASCEND).build();
  }

  /** clientv3.WithLastCreate + WithMaxCreateRev: the newest key under {@code prefix} created at or before {@code maxCreateRevision}. */
  static RangeRequest lastCreatedUpTo(ByteString prefix, long maxCreateRevision) {
    return RangeRequest.newBuilder().setKey(prefix).setRangeEnd(rangeEnd(prefix)).setLimit(1)
        .setSortTarget(RangeRequest.SortTarget.CREATE).setSortOrder(RangeRequest.SortOrder.DESCEND)
        .setMaxCreateRevision(maxCreateRevision).build();
  }

  /**
   * A contender's one txn (Mutex.tryAcquire, Election.Campaign): if {@code myKey} is new, put it
   * with {@code value} under {@code lease}, else read it; either way read the oldest key under
   * {@code prefix}, in the same apply. Responses: 0 the put or the read of {@code myKey}, 1 the oldest.
   */
  static TxnRequest enter(ByteString prefix, ByteString myKey, ByteString value, long lease) {
    RequestOp oldest = RequestOp.newBuilder().setRequestRange(firstCreated(prefix)).build();
    return TxnRequest.newBuilder()
        .addCompare(Compare.newBuilder().setKey(myKey).setTarget(Compare.CompareTarget.CREATE)
            .setResult(Compare.CompareResult.EQUAL).setCreateRevision(0))
        .addSuccess(RequestOp.newBuilder().setRequestPut(
            PutRequest.newBuilder().setKey(myKey).setValue(value).setLease(lease)))
        .addSuccess(oldest)
        .addFailure(RequestOp.newBuilder().setRequestRange(RangeRequest.newBuilder().setKey(myKey)))
        .addFailure(oldest)
        .build();
  }
}
