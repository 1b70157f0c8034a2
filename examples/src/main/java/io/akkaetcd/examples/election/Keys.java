package io.akkaetcd.examples.election;

import com.google.protobuf.ByteString;

/** Keys and values as etcd's byte strings. */
final class Keys {
  private Keys() {}

  static ByteString utf8(String s) {
    return ByteString.copyFromUtf8(s);
  }

  /**
   * The range end that makes a range or watch cover every key starting with {@code prefix}:
   * the prefix with its last byte below 0xff incremented (etcd's clientv3 GetPrefixRangeEnd).
   */
  static ByteString prefixEnd(String prefix) {
    byte[] end = utf8(prefix).toByteArray();
    for (int i = end.length - 1; i >= 0; i--) {
      if (end[i] != (byte) 0xff) {
        end[i]++;
        return ByteString.copyFrom(end, 0, i + 1);
      }
    }
    return ByteString.copyFrom(new byte[] {0}); // all 0xff: every key from the prefix on
  }
}
