package io.akkaetcd.raft.peer;

/**
 * A Raft stream's bytes on the peer port: the preamble {@code RAFT} and a version, in plain text
 * (Artery's connections there begin with {@code AKKA} or a TLS record, so the port tells them
 * apart), then TLS for https:// peer URLs, then RaftMessages, each preceded by its length as a
 * varint (protobuf's delimited form).
 */
final class StreamWire {
  static final byte[] MAGIC = {'R', 'A', 'F', 'T'};
  static final byte[] VERSION = {0, 0, 0, 1};
  static final byte[] PREAMBLE = preamble();

  private static byte[] preamble() {
    byte[] p = java.util.Arrays.copyOf(MAGIC, MAGIC.length + VERSION.length);
    System.arraycopy(VERSION, 0, p, MAGIC.length, VERSION.length);
    return p;
  }

  private StreamWire() {}
}
