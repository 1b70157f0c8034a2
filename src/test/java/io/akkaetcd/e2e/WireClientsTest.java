package io.akkaetcd.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Clients whose wire habits differ from grpc-go's with a bare endpoint (issue #24): etcdctl with
 * http:// endpoints, grpc-js resetting every finished call, Patroni sending a body with GET; and
 * a flood of resets of streams in flight, which must still be cut off.
 */
class WireClientsTest {
  private static EmbeddedMember member;

  @BeforeAll
  static void start() {
    member = new EmbeddedMember();
  }

  @AfterAll
  static void stop() {
    member.close();
  }

  @Test
  void perEndpointCommandsWorkWithHttpEndpoints() {
    for (String endpoint : List.of(member.url(), "127.0.0.1:" + member.port())) {
      for (List<String> command : List.of(List.of("endpoint", "status"), List.of("endpoint", "hashkv"),
          List.of("endpoint", "health"), List.of("defrag"))) {
        Etcdctl.Result r = Etcdctl.run(endpoint, null, command);
        assertEquals(0, r.exit(), endpoint + " " + command + ": " + r.all());
        assertTrue((r.stdout() + r.stderr()).contains(endpoint), r.all());
      }
    }
  }

  /** Patroni's GET /version with "{}" as its body, twice on one keep-alive connection. */
  @Test
  void aBodyThatArrivesAfterTheHeadersKeepsTheConnection() throws IOException {
    try (Socket s = new Socket("127.0.0.1", member.port())) {
      s.setSoTimeout(10_000);
      OutputStream out = s.getOutputStream();
      InputStream in = s.getInputStream();
      for (int i = 0; i < 2; i++) {
        out.write(("GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: 2\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        // Nothing may be answered before the body is read (that answer would close the connection).
        s.setSoTimeout(300);
        assertThrows(SocketTimeoutException.class, in::read, "answered before the body was sent");
        s.setSoTimeout(10_000);
        out.write("{}".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        String head = readHead(in);
        assertTrue(head.startsWith("HTTP/1.1 200 OK"), head);
        assertFalse(head.toLowerCase().contains("connection: close"), head);
        int length = Integer.parseInt(head.replaceAll("(?s).*[Cc]ontent-[Ll]ength: (\\d+).*", "$1"));
        String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
        assertTrue(body.startsWith("{\"etcdserver\":"), body);
      }
    }
  }

  /**
   * grpc-js 1.8.20 (the version npm's etcd3 1.1.2 locks) resets every stream once its call is
   * done; Akka HTTP's guard alone cut such a client off after 400 calls in 10 s.
   */
  @Test
  void grpcJsThatResetsEveryFinishedCallIsServedThroughout() throws Exception {
    Path modules = NpmModules.install("grpc-js-1.8.20", "@grpc/grpc-js@1.8.20", "@grpc/proto-loader@0.7.10");
    String output = NpmModules.run(modules, "wire/grpc-js-unary.js", 300,
        List.of(Path.of("protobuf").toAbsolutePath().toString(), "127.0.0.1:" + member.port(), "5000"));
    assertEquals("OK 5000", output.trim());
  }

  /**
   * The same habit at the frame level, and faster than any client: 600 requests answered in full,
   * then 600 resets of them at once (more than the guard's 400 in 10 s), then one more request.
   */
  @Test
  void resetsOfAnsweredStreamsAreNeverCountedAgainstTheClient() throws IOException {
    try (H2 h2 = new H2(member.port())) {
      int next = answerThenReset(h2, 1, 600, "GET", "/version", null, true);
      h2.send(h2.headers(next, "GET", "/version", null, true));
      h2.awaitEnds(java.util.Set.of(next));
    }
  }

  /** Opens {@code count} streams from {@code first} at once, awaits their answers, resets them all at once. */
  private static int answerThenReset(H2 h2, int first, int count, String method, String path, String contentType,
      boolean endStream) throws IOException {
    ByteArrayOutputStream requests = new ByteArrayOutputStream();
    ByteArrayOutputStream resets = new ByteArrayOutputStream();
    java.util.Set<Integer> streams = new java.util.HashSet<>();
    for (int i = 0; i < count; i++) {
      int stream = first + 2 * i;
      streams.add(stream);
      requests.write(h2.headers(stream, method, path, contentType, endStream));
      resets.write(h2.rst(stream));
    }
    h2.send(requests.toByteArray());
    h2.awaitEnds(streams);
    h2.send(resets.toByteArray());
    return first + 2 * count;
  }

  /** Rapid reset (CVE-2023-44487): HEADERS then RST_STREAM at once, for many streams. */
  @Test
  void aFloodOfResetsOfStreamsInFlightIsCutOff() throws IOException {
    try (H2 h2 = new H2(member.port())) {
      ByteArrayOutputStream flood = new ByteArrayOutputStream();
      for (int i = 0; i < 1000; i++) {
        int stream = 2 * i + 1;
        flood.write(h2.headers(stream, "POST", "/etcdserverpb.KV/Range", "application/grpc", false));
        flood.write(h2.rst(stream));
      }
      h2.send(flood.toByteArray());
      assertEquals(H2.ENHANCE_YOUR_CALM, h2.awaitGoAway());
    }
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    while (!head.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
      int b = in.read();
      if (b < 0) {
        throw new EOFException("connection closed after " + head);
      }
      head.write(b);
    }
    return head.toString(StandardCharsets.US_ASCII);
  }

  /** A bare HTTP/2 client speaking prior knowledge over cleartext, frame by frame. */
  static final class H2 implements AutoCloseable {
    static final int ENHANCE_YOUR_CALM = 0xb;
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    H2(int port) throws IOException {
      socket = new Socket("127.0.0.1", port);
      socket.setSoTimeout(20_000);
      socket.setTcpNoDelay(true);
      in = new DataInputStream(socket.getInputStream());
      out = socket.getOutputStream();
      out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      out.write(frame(4, 0, 0, new byte[0]));
    }

    void send(byte[] bytes) throws IOException {
      out.write(bytes);
      out.flush();
    }

    /** A request's HEADERS, every field a literal without indexing (RFC 7541 §6.2.2). */
    byte[] headers(int stream, String method, String path, String contentType, boolean endStream) {
      ByteArrayOutputStream block = new ByteArrayOutputStream();
      literal(block, ":method", method);
      literal(block, ":scheme", "http");
      literal(block, ":path", path);
      literal(block, ":authority", "127.0.0.1");
      if (contentType != null) {
        literal(block, "content-type", contentType);
        literal(block, "te", "trailers");
      }
      return frame(1, 0x4 | (endStream ? 0x1 : 0), stream, block.toByteArray());
    }

    byte[] rst(int stream) {
      return frame(3, 0, stream, new byte[] {0, 0, 0, 8}); // CANCEL
    }

    /** Reads frames until the server has ended every one of {@code streams}; fails on GOAWAY or a reset of one. */
    void awaitEnds(java.util.Set<Integer> streams) throws IOException {
      java.util.Set<Integer> open = new java.util.HashSet<>(streams);
      while (!open.isEmpty()) {
        int[] f = readFrame();
        assertTrue(f[0] != 7, "GOAWAY with error " + f[3] + " while " + open.size() + " streams were open");
        assertFalse(f[0] == 3 && open.contains(f[2]), "stream " + f[2] + " was reset");
        if ((f[0] == 0 || f[0] == 1) && (f[1] & 0x1) != 0) {
          open.remove(f[2]);
        }
      }
    }

    /** Reads frames until GOAWAY; its error code. */
    int awaitGoAway() throws IOException {
      while (true) {
        int[] f = readFrame();
        if (f[0] == 7) {
          return f[3];
        }
      }
    }

    /** {type, flags, stream, GOAWAY's error code}; acknowledges SETTINGS. */
    private int[] readFrame() throws IOException {
      int length = in.readUnsignedByte() << 16 | in.readUnsignedShort();
      int type = in.readUnsignedByte();
      int flags = in.readUnsignedByte();
      int stream = in.readInt() & 0x7fffffff;
      byte[] payload = in.readNBytes(length);
      if (type == 4 && (flags & 0x1) == 0) {
        send(frame(4, 0x1, 0, new byte[0]));
      }
      int error = type == 7 && length >= 8 ? java.nio.ByteBuffer.wrap(payload, 4, 4).getInt() : 0;
      return new int[] {type, flags, stream, error};
    }

    private static void literal(ByteArrayOutputStream block, String name, String value) {
      block.write(0);
      block.write(name.length());
      block.writeBytes(name.getBytes(StandardCharsets.US_ASCII));
      block.write(value.length());
      block.writeBytes(value.getBytes(StandardCharsets.US_ASCII));
    }

    private static byte[] frame(int type, int flags, int stream, byte[] payload) {
      java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(9 + payload.length);
      b.put((byte) (payload.length >>> 16)).putShort((short) payload.length).put((byte) type).put((byte) flags)
          .putInt(stream).put(payload);
      return b.array();
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
