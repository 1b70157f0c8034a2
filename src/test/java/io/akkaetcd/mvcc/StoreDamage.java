package io.akkaetcd.mvcc;

import com.google.protobuf.ByteString;
import io.akkaetcd.proto.mvccpb.KeyValue;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.iq80.leveldb.ReadOptions;

/**
 * Damages a stopped member's store on purpose, for the corruption checks' tests: rewrites the
 * value of a key's latest revision row in place, with the store's own layout, as a bit flip on
 * disk would. Revisions, the index and every other row stay as they were.
 */
public final class StoreDamage {
  private StoreDamage() {}

  /** Rewrites {@code key}'s latest stored value to {@code value} in the store under {@code storeDir}. */
  public static void rewriteValue(Path storeDir, String key, String value) {
    Backend backend = Backend.open(storeDir);
    try {
      ByteString k = ByteString.copyFromUtf8(key);
      AtomicReference<byte[]> row = new AtomicReference<>();
      AtomicReference<KeyValue> kv = new AtomicReference<>();
      backend.scanRevisions(new ReadOptions(), 0, Long.MAX_VALUE, (rowKey, rowValue) -> {
        KeyValue parsed = StoreLayout.parse(rowValue);
        if (parsed.getKey().equals(k) && rowKey.length == 1 + Revision.BYTES) { // not a tombstone
          row.set(rowKey);
          kv.set(parsed);
        }
      });
      if (row.get() == null) {
        throw new IllegalStateException("no revision of " + key + " in " + storeDir);
      }
      backend.db().put(row.get(), kv.get().toBuilder()
          .setValue(ByteString.copyFrom(value.getBytes(StandardCharsets.UTF_8))).build().toByteArray());
    } finally {
      backend.close();
    }
  }
}
