package io.akkaetcd.api.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;

import akka.http.shaded.com.twitter.hpack.Decoder;
import akka.http.shaded.com.twitter.hpack.Encoder;
import akka.util.ByteString;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The client's frames as the server gets them, however the bytes are split into chunks. */
class InboundFramesTest {
  private static final ByteString SETTINGS = Frames.header(0, 4, 0, 0);
  private final StreamStates streams = new StreamStates();
  private final InboundFrames inbound = new InboundFrames(streams);
  private final OutboundFrames outbound = new OutboundFrames(streams);

  @Test
  void http1PassesUnchanged() {
    ByteString request = ByteString.fromString("GET /version HTTP/1.1\r\nHost: x\r\n\r\n", StandardCharsets.US_ASCII);
    assertEquals(request, feedByteByByte(request));
    assertEquals(ByteString.emptyByteString(), inbound.finish());
  }

  @Test
  void h2cUpgradesAreDroppedFromEveryRequestHeadButNotFromBodies() {
    String body = "x\r\nUpgrade: h2c\r\n\r\n";
    ByteString sent = ascii("POST /v3/kv/put HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n"
        + "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\nContent-Length: " + body.length() + "\r\n\r\n"
        + body
        + "GET /metrics HTTP/1.1\r\nhttp2-settings: AAMAAABk\r\nupgrade: H2C\r\nHost: x\r\n\r\n");
    ByteString expected = ascii("POST /v3/kv/put HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n"
        + "Content-Length: " + body.length() + "\r\n\r\n"
        + body
        + "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
    assertEquals(expected, feedByteByByte(sent));
    assertEquals(expected, new InboundFrames(new StreamStates()).process(sent));
    assertEquals(ByteString.emptyByteString(), inbound.finish());
  }

  @Test
  void afterAChunkedBodyOrOnTlsTheBytesPassAsSent() {
    ByteString chunked = ascii("POST /v3/kv/put HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "3\r\nabc\r\n0\r\n\r\nGET / HTTP/1.1\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABk\r\n\r\n");
    assertEquals(chunked, feedByteByByte(chunked));
    // a TLS ClientHello record: handed on at once, nothing held back for a head that never ends
    ByteString hello = ByteString.fromArray(new byte[] {0x16, 3, 1, 0, 5, 1, 0, 0, 1, 0});
    assertEquals(hello, new InboundFrames(new StreamStates()).process(hello));
  }

  @Test
  void resetsOfFinishedStreamsNeverReachTheServer() {
    ByteString open = InboundFrames.PREFACE.concat(SETTINGS)
        .concat(headers(1, Frames.END_STREAM)).concat(headers(3, 0)).concat(headers(5, 0));
    assertEquals(open, feedByteByByte(open));
    // the server answers 1 in full and 3 in full; 5 is still being served
    outbound.observe(Frames.header(2, Frames.DATA, Frames.END_STREAM, 1).concat(ByteString.fromArray(new byte[2])));
    outbound.observe(Frames.header(0, Frames.HEADERS, Frames.END_STREAM | Frames.END_HEADERS, 3));
    ByteString resets = rst(1).concat(rst(3)).concat(rst(5)).concat(rst(1)).concat(rst(7));
    ByteString expected = rst(3) // 3: the client had not ended it; only the reset closes it
        .concat(rst(5))          // 5: still served
        .concat(rst(7));         // 7: never opened, the server decides
    assertEquals(expected, feedByteByByte(resets));
    assertEquals(0, streams.openStreams());
  }

  @Test
  void aBadAuthorityIsRepairedAndOtherFramesPassAsSent() throws IOException {
    Encoder client = new Encoder(4096);
    ByteString block = AuthorityRepairTest.encode(client, List.of(":method", "POST", ":path", "/etcdserverpb.KV/Range",
        ":authority", "http://127.0.0.1:2379"));
    // HEADERS, padded and with priority, its block split over a CONTINUATION; then DATA
    ByteString payload = ByteString.fromArray(new byte[] {3, 0, 0, 0, 0, 16}).concat(block.take(5))
        .concat(ByteString.fromArray(new byte[3]));
    ByteString data = Frames.header(3, Frames.DATA, Frames.END_STREAM, 1).concat(ByteString.fromArray(new byte[] {7, 8, 9}));
    ByteString sent = InboundFrames.PREFACE.concat(SETTINGS)
        .concat(Frames.header(payload.size(), Frames.HEADERS, Frames.PADDED | Frames.PRIORITY, 1)).concat(payload)
        .concat(Frames.header(block.size() - 5, Frames.CONTINUATION, Frames.END_HEADERS, 1)).concat(block.drop(5))
        .concat(data);
    ByteString received = feedByteByByte(sent);

    ByteString frames = received.drop(InboundFrames.PREFACE.size() + SETTINGS.size());
    int length = Frames.length(frames, 0);
    assertEquals(Frames.HEADERS, Frames.type(frames, 0));
    assertEquals(Frames.PRIORITY | Frames.END_HEADERS, Frames.flags(frames, 0));
    assertEquals(1, Frames.stream(frames, 0));
    ByteString repaired = frames.slice(Frames.HEADER_LENGTH + 5, Frames.HEADER_LENGTH + length);
    assertEquals(List.of(":method", "POST", ":path", "/etcdserverpb.KV/Range", ":authority", "http___127.0.0.1_2379"),
        AuthorityRepairTest.decode(new Decoder(Integer.MAX_VALUE, 4096), repaired));
    assertEquals(data, frames.drop(Frames.HEADER_LENGTH + length));
  }

  private static ByteString ascii(String s) {
    return ByteString.fromString(s, StandardCharsets.US_ASCII);
  }

  private ByteString feedByteByByte(ByteString bytes) {
    ByteString out = ByteString.emptyByteString();
    for (int i = 0; i < bytes.size(); i++) {
      out = out.concat(inbound.process(bytes.slice(i, i + 1)));
    }
    return out;
  }

  /** HEADERS with a one-field block (:method GET, static index 2). */
  private static ByteString headers(int stream, int flags) {
    return Frames.header(1, Frames.HEADERS, flags | Frames.END_HEADERS, stream).concat(ByteString.fromArray(new byte[] {(byte) 0x82}));
  }

  private static ByteString rst(int stream) {
    return Frames.header(4, Frames.RST_STREAM, 0, stream).concat(ByteString.fromArray(new byte[] {0, 0, 0, 8}));
  }
}
