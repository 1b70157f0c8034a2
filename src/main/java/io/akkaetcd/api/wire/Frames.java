package io.akkaetcd.api.wire;

import akka.util.ByteString;

/** HTTP/2 frame layout (RFC 7540 §4.1, §6): a 9-byte header, then the payload. */
final class Frames {
  static final int HEADER_LENGTH = 9;
  /** The largest payload every HTTP/2 peer accepts (SETTINGS_MAX_FRAME_SIZE's initial value). */
  static final int MIN_MAX_FRAME_SIZE = 16384;

  static final int DATA = 0;
  static final int HEADERS = 1;
  static final int RST_STREAM = 3;
  static final int CONTINUATION = 9;

  static final int END_STREAM = 0x1;
  static final int END_HEADERS = 0x4;
  static final int PADDED = 0x8;
  static final int PRIORITY = 0x20;

  private Frames() {}

  static int length(ByteString b, int at) {
    return (b.apply(at) & 0xff) << 16 | (b.apply(at + 1) & 0xff) << 8 | (b.apply(at + 2) & 0xff);
  }

  static int type(ByteString b, int at) {
    return b.apply(at + 3) & 0xff;
  }

  static int flags(ByteString b, int at) {
    return b.apply(at + 4) & 0xff;
  }

  static int stream(ByteString b, int at) {
    return (b.apply(at + 5) & 0x7f) << 24 | (b.apply(at + 6) & 0xff) << 16 | (b.apply(at + 7) & 0xff) << 8
        | (b.apply(at + 8) & 0xff);
  }

  /** A frame header; the payload follows it. */
  static ByteString header(int length, int type, int flags, int stream) {
    return ByteString.fromArrayUnsafe(new byte[] {
        (byte) (length >>> 16), (byte) (length >>> 8), (byte) length, (byte) type, (byte) flags,
        (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8), (byte) stream});
  }
}
