package io.akkaetcd.api.wire;

import akka.util.ByteString;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * A client's bytes on their way to Akka HTTP. A connection that starts with the HTTP/2 preface is
 * read frame by frame: header blocks go through {@link AuthorityRepair}, and a RST_STREAM is
 * handed on as {@link StreamStates} says (so that Akka HTTP's rapid-reset guard counts only
 * resets of streams still being served). A cleartext HTTP/1.1 connection goes through
 * {@link Http1Requests}, which drops h2c upgrades as etcd does; a TLS one (this stage sits below
 * TLS) passes unchanged, as does the rest of an HTTP/2 connection once its framing stops making
 * sense here (the server then refuses it as before). Frames other than HEADERS and CONTINUATION
 * pass as their bytes arrive; a header block is held until it is complete. Confined to the
 * connection's stage.
 */
final class InboundFrames {
  static final ByteString PREFACE = ByteString.fromString("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", StandardCharsets.US_ASCII);
  /** A header block larger than this is passed on unread, and the connection with it. */
  private static final int MAX_BLOCK = 1 << 20;

  private enum Mode { PREFACE, FRAMES, HTTP1, PASS }

  private final StreamStates streams;
  private final AuthorityRepair authority = new AuthorityRepair();
  private final Http1Requests http1 = new Http1Requests();
  private Mode mode = Mode.PREFACE;
  /** Bytes held back: a partial preface, frame header or HEADERS/CONTINUATION frame. */
  private ByteString pending = ByteString.emptyByteString();
  /** Payload bytes of the current frame still to pass on, or (negative) to drop. */
  private int forward;

  // The header block being collected (RFC 7540 §6.2, §6.10): its frames as received, its fragments.
  private ByteString blockFrames;
  private ByteString blockFragments;
  private int blockStream;
  private int blockFlags;
  private ByteString blockPriority;

  InboundFrames(StreamStates streams) {
    this.streams = streams;
  }

  /** True once the connection has been seen to speak HTTP/2 with prior knowledge. */
  boolean http2() {
    return mode == Mode.FRAMES;
  }

  /** The bytes to hand on for this chunk (possibly none yet). */
  ByteString process(ByteString chunk) {
    ByteString in = pending.isEmpty() ? chunk : pending.concat(chunk);
    pending = ByteString.emptyByteString();
    ByteString out = ByteString.emptyByteString();
    int i = 0;
    int n = in.size();
    while (i < n) {
      if (mode == Mode.PASS) {
        return out.concat(in.drop(i));
      }
      if (mode == Mode.HTTP1) {
        return out.concat(http1.process(in.drop(i)));
      }
      if (mode == Mode.PREFACE) {
        int m = Math.min(n, PREFACE.size());
        if (!in.take(m).equals(PREFACE.take(m))) {
          // A cleartext HTTP/1.1 request starts with its method's letters; TLS (0x16) passes as sent.
          byte first = in.apply(i);
          mode = first >= 'A' && first <= 'Z' ? Mode.HTTP1 : Mode.PASS;
          continue;
        }
        if (m < PREFACE.size()) {
          pending = in;
          return out;
        }
        out = PREFACE;
        i = m;
        mode = Mode.FRAMES;
        continue;
      }
      if (forward != 0) {
        int k = Math.min(Math.abs(forward), n - i);
        if (forward > 0) {
          out = out.concat(in.slice(i, i + k));
          forward -= k;
        } else {
          forward += k;
        }
        i += k;
        continue;
      }
      if (n - i < Frames.HEADER_LENGTH) {
        break;
      }
      int length = Frames.length(in, i);
      int type = Frames.type(in, i);
      int stream = Frames.stream(in, i);
      boolean blockFrame = type == Frames.HEADERS && blockFrames == null
          || type == Frames.CONTINUATION && blockFrames != null && stream == blockStream;
      if (blockFrames != null && !blockFrame || (type == Frames.HEADERS || type == Frames.CONTINUATION) && !blockFrame
          || blockFrame && length > Frames.MIN_MAX_FRAME_SIZE) {
        // Not framing this layer can follow (the server will say so): hand on the rest as it is.
        out = out.concat(giveUp());
        continue;
      }
      if (blockFrame) {
        if (n - i < Frames.HEADER_LENGTH + length) {
          break;
        }
        ByteString frame = in.slice(i, i + Frames.HEADER_LENGTH + length);
        i += frame.size();
        out = out.concat(headerBlockFrame(frame, type, stream));
        continue;
      }
      ByteString header = in.slice(i, i + Frames.HEADER_LENGTH);
      i += Frames.HEADER_LENGTH;
      forward = length;
      if (type == Frames.RST_STREAM && length == 4) {
        if (streams.clientReset(stream) == StreamStates.Reset.DROP) {
          forward = -length;
        } else {
          out = out.concat(header);
        }
        continue;
      }
      if (type == Frames.DATA && (Frames.flags(header, 0) & Frames.END_STREAM) != 0) {
        streams.clientEnded(stream);
      }
      out = out.concat(header);
    }
    pending = in.drop(i);
    return out;
  }

  /** What is still held back when the client's side ends: handed on as it is. */
  ByteString finish() {
    if (mode == Mode.HTTP1) {
      return http1.finish();
    }
    ByteString rest = blockFrames == null ? pending : blockFrames.concat(pending);
    blockFrames = null;
    pending = ByteString.emptyByteString();
    return rest;
  }

  private ByteString giveUp() {
    mode = Mode.PASS;
    ByteString held = blockFrames == null ? ByteString.emptyByteString() : blockFrames;
    blockFrames = null;
    return held;
  }

  /** A HEADERS or CONTINUATION frame of the block being collected; the block's bytes once complete. */
  private ByteString headerBlockFrame(ByteString frame, int type, int stream) {
    int flags = Frames.flags(frame, 0);
    ByteString payload = frame.drop(Frames.HEADER_LENGTH);
    if (type == Frames.HEADERS) {
      int padding = (flags & Frames.PADDED) != 0 && !payload.isEmpty() ? payload.apply(0) & 0xff : 0;
      int offset = (flags & Frames.PADDED) != 0 ? 1 : 0;
      int priority = (flags & Frames.PRIORITY) != 0 ? 5 : 0;
      if (offset + priority + padding > payload.size()) {
        return frame.concat(giveUp());
      }
      streams.clientHeaders(stream, (flags & Frames.END_STREAM) != 0);
      blockFrames = frame;
      blockStream = stream;
      blockFlags = flags;
      blockPriority = payload.slice(offset, offset + priority);
      blockFragments = payload.slice(offset + priority, payload.size() - padding);
    } else {
      blockFrames = blockFrames.concat(frame);
      blockFragments = blockFragments.concat(payload);
    }
    if (blockFragments.size() > MAX_BLOCK) {
      return giveUp();
    }
    if ((flags & Frames.END_HEADERS) == 0) {
      return ByteString.emptyByteString();
    }
    ByteString original = blockFrames;
    blockFrames = null;
    ByteString repaired;
    try {
      repaired = authority.repair(blockFragments);
    } catch (IOException | RuntimeException e) {
      mode = Mode.PASS; // the server's own decoder fails on it too
      return original;
    }
    return repaired == null ? original : render(repaired);
  }

  /** The repaired block as HEADERS (same stream, END_STREAM and priority, no padding) and CONTINUATIONs. */
  private ByteString render(ByteString block) {
    ByteString payload = blockPriority.concat(block);
    int flags = blockFlags & ~(Frames.PADDED | Frames.END_HEADERS);
    int type = Frames.HEADERS;
    ByteString out = ByteString.emptyByteString();
    do {
      int k = Math.min(payload.size(), Frames.MIN_MAX_FRAME_SIZE);
      boolean last = k == payload.size();
      out = out.concat(Frames.header(k, type, flags | (last ? Frames.END_HEADERS : 0), blockStream))
          .concat(payload.take(k));
      payload = payload.drop(k);
      type = Frames.CONTINUATION;
      flags = 0;
    } while (!payload.isEmpty());
    return out;
  }
}
