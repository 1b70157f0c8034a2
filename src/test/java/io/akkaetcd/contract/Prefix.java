package io.akkaetcd.contract;

import com.google.protobuf.ByteString;

/**
 * The keys of one test over one transport: {@code <test>/<transport>/...}, so that the tests
 * sharing a member never see each other's keys.
 */
record Prefix(String start) {
  static Prefix of(String test, Transport transport) {
    return new Prefix(test + "/" + transport + "/");
  }

  ByteString key(String name) {
    return b(start + name);
  }

  /** The prefix as a range's key. */
  ByteString from() {
    return b(start);
  }

  /** The range end that makes {@link #from()} a prefix: the last byte plus one, as etcd's clients do. */
  ByteString end() {
    return b(start.substring(0, start.length() - 1) + (char) (start.charAt(start.length() - 1) + 1));
  }

  static ByteString b(String s) {
    return ByteString.copyFromUtf8(s);
  }
}
