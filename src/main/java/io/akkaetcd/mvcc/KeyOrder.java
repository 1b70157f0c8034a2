package io.akkaetcd.mvcc;

import com.google.protobuf.ByteString;
import java.util.Comparator;

/**
 * etcd's key order: bytes compared unsigned, a prefix before its extensions. The same order as
 * protobuf's {@code ByteString.unsignedLexicographicalComparator()}, which walks both keys with
 * iterators and boxes; this one reads bytes by index and was about ten times faster on the key
 * index (rebuilding it for a million keys at open was most of a restart).
 */
public final class KeyOrder {
  public static final Comparator<ByteString> COMPARATOR = KeyOrder::compare;
  /** The same order on bare arrays (the JDK's unsigned comparison, an intrinsic). */
  public static final Comparator<byte[]> BYTES = java.util.Arrays::compareUnsigned;

  private KeyOrder() {}

  public static int compare(ByteString a, ByteString b) {
    int n = Math.min(a.size(), b.size());
    for (int i = 0; i < n; i++) {
      int c = (a.byteAt(i) & 0xff) - (b.byteAt(i) & 0xff);
      if (c != 0) {
        return c;
      }
    }
    return a.size() - b.size();
  }
}
