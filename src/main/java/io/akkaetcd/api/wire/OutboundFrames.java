package io.akkaetcd.api.wire;

import akka.util.ByteString;

/**
 * Watches the server's HTTP/2 frames to a client for the ends of streams (END_STREAM, RST_STREAM)
 * and tells {@link StreamStates}; the bytes themselves pass unchanged. Frames may be split across
 * chunks in any way. Confined to the connection's stage.
 */
final class OutboundFrames {
  private final StreamStates streams;
  private final byte[] header = new byte[Frames.HEADER_LENGTH];
  private int headerFill;
  /** Payload bytes of the current frame not yet seen. */
  private int skip;

  OutboundFrames(StreamStates streams) {
    this.streams = streams;
  }

  void observe(ByteString bytes) {
    int n = bytes.size();
    int i = 0;
    while (i < n) {
      if (skip > 0) {
        int k = Math.min(skip, n - i);
        skip -= k;
        i += k;
        continue;
      }
      header[headerFill++] = bytes.apply(i++);
      if (headerFill == Frames.HEADER_LENGTH) {
        headerFill = 0;
        frame(ByteString.fromArrayUnsafe(header));
      }
    }
  }

  private void frame(ByteString h) {
    skip = Frames.length(h, 0);
    int type = Frames.type(h, 0);
    int stream = Frames.stream(h, 0);
    if ((type == Frames.DATA || type == Frames.HEADERS) && (Frames.flags(h, 0) & Frames.END_STREAM) != 0) {
      streams.serverEnded(stream);
    } else if (type == Frames.RST_STREAM) {
      streams.serverReset(stream);
    }
  }
}
