package io.akkaetcd.api.wire;

import java.util.HashMap;
import java.util.Map;

/**
 * The client-opened streams of one HTTP/2 connection that are not yet closed both ways, as seen on
 * the wire: opened by the client's HEADERS, ended per direction by END_STREAM, closed by a reset
 * either way. Decides what a client's RST_STREAM means to the server. Confined to the
 * connection's stage.
 */
final class StreamStates {
  /** What becomes of a client's RST_STREAM. */
  enum Reset {
    /**
     * The stream is open at least one way (or unknown here): the server sees the reset. This
     * includes a stream the server answered before the client ended its side: only the reset
     * closes it for Akka HTTP when the request's body is never read.
     */
    PASS,
    /** The stream is closed both ways: a reset changes nothing (RFC 7540 §5.1 "closed"), drop it. */
    DROP
  }

  private static final byte CLIENT_ENDED = 1;
  private static final byte SERVER_ENDED = 2;

  /** Open streams (at least one side not ended) by id; a stream leaves once both sides ended. */
  private final Map<Integer, Byte> open = new HashMap<>();
  /** The highest stream id the client opened; lower odd ids that are not open are closed. */
  private int highestClientStream;

  /** The client sent HEADERS on {@code id}: a new stream, or trailers on an open one. */
  void clientHeaders(int id, boolean endStream) {
    if ((id & 1) == 1 && id > highestClientStream) {
      highestClientStream = id;
      open.put(id, (byte) 0);
    }
    if (endStream) {
      ended(id, CLIENT_ENDED);
    }
  }

  void clientEnded(int id) {
    ended(id, CLIENT_ENDED);
  }

  void serverEnded(int id) {
    ended(id, SERVER_ENDED);
  }

  void serverReset(int id) {
    open.remove(id);
  }

  /** The client reset {@code id}: what the server is to see (the stream is closed after it). */
  Reset clientReset(int id) {
    if (open.remove(id) != null) {
      return Reset.PASS;
    }
    return (id & 1) == 1 && id <= highestClientStream ? Reset.DROP : Reset.PASS;
  }

  /** Streams still open; for tests. */
  int openStreams() {
    return open.size();
  }

  private void ended(int id, byte side) {
    Byte state = open.get(id);
    if (state == null) {
      return;
    }
    int now = state | side;
    if (now == (CLIENT_ENDED | SERVER_ENDED)) {
      open.remove(id);
    } else {
      open.put(id, (byte) now);
    }
  }
}
