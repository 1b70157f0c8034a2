package io.akkaetcd.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.akkaetcd.proto.raftpb.MessageType;
import io.akkaetcd.proto.raftpb.RaftMessage;
import io.akkaetcd.raft.Message;
import io.akkaetcd.raft.peer.PeerGate;
import io.akkaetcd.raft.peer.PeerPort;
import io.akkaetcd.raft.peer.PeerTraffic;
import io.akkaetcd.raft.peer.RaftStreams;
import io.akkaetcd.raft.peer.StreamSockets;
import io.akkaetcd.tls.PeerSslEngineProvider;
import io.akkaetcd.tls.TestCerts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Raft streams over TLS with etcd's peer flags: a trusted peer's stream delivers, an untrusted one is cut off. */
class TlsStreamSocketsTest {
  @TempDir
  Path dir;

  @Test
  void aTrustedPeerStreamsAndAnUntrustedOneIsRefused() throws Exception {
    TestCerts ca = TestCerts.create(Files.createDirectories(dir.resolve("ca")));
    TestCerts rogue = TestCerts.create(Files.createDirectories(dir.resolve("rogue")), "rogue-ca");
    StreamSockets a = sockets(ca.server("a"), ca);
    StreamSockets b = sockets(ca.server("b"), ca);
    // Trusts the cluster's CA, so it accepts member a's certificate; a does not accept its own.
    StreamSockets c = sockets(rogue.server("c"), ca);
    List<Message> delivered = new CopyOnWriteArrayList<>();
    try (ServerSocket artery = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
         PeerPort port = PeerPort.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
             (InetSocketAddress) artery.getLocalSocketAddress(), a, delivered::add, PeerGate.OPEN, 7,
             PeerTraffic.NONE, 1 << 20)) {
      int p = port.address().getPort();
      try (Socket raw = StreamSockets.connect(new InetSocketAddress("127.0.0.1", p), 1000)) {
        raw.getOutputStream().write(new byte[] {'R', 'A', 'F', 'T', 0, 0, 0, 1});
        raw.setSoTimeout((int) TimeUnit.SECONDS.toMillis(10));
        // TLS 1.3: the client may finish its half before the server refuses its certificate; the
        // refusal then arrives as an alert on the client's next read, and the stream is closed.
        IOException refused = assertThrows(IOException.class, () -> {
          Socket s = c.dialed(raw, "127.0.0.1", p);
          vote(3).writeDelimitedTo(s.getOutputStream());
          s.getOutputStream().flush();
          if (s.getInputStream().read() < 0) {
            throw new IOException("closed");
          }
        });
        assertTrue(!(refused instanceof java.net.SocketTimeoutException), "the member kept the stream open: " + refused);
      }
      RaftStreams streams = new RaftStreams(Map.of(1L, URI.create("https://127.0.0.1:" + p)), b, PeerTraffic.NONE);
      try {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!streams.send(1, vote(5)) || delivered.isEmpty()) {
          assertTrue(System.nanoTime() < deadline, "the trusted peer's stream delivered nothing");
          Thread.onSpinWait();
        }
      } finally {
        streams.close();
      }
      assertEquals(5, delivered.get(0).term(), "only the trusted peer's message arrived");
    }
  }

  private static StreamSockets sockets(TestCerts.Issued own, TestCerts trusted) {
    return new TlsStreamSockets(PeerSslEngineProvider.sides(Map.of(
        "peer-cert-file", own.cert().toString(),
        "peer-key-file", own.key().toString(),
        "peer-trusted-ca-file", trusted.caFile().toString(),
        "peer-client-cert-auth", "true")));
  }

  private static RaftMessage vote(long term) {
    return RaftMessage.newBuilder().setClusterId(7).setType(MessageType.REQUEST_VOTE).setFrom(2).setTo(1)
        .setTerm(term).build();
  }
}
