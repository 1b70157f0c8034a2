package io.akkaetcd.raft.peer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.akkaetcd.proto.raftpb.MessageType;
import io.akkaetcd.proto.raftpb.RaftMessage;
import io.akkaetcd.raft.Message;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** Raft streams on a peer port shared with Artery's connections, over real loopback sockets. */
class RaftStreamsTest {
  private static final long CLUSTER = 7;
  private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

  @Test
  void messagesArriveInOrderAndOtherConnectionsReachArtery() throws Exception {
    List<Message> delivered = new CopyOnWriteArrayList<>();
    try (ServerSocket artery = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
         PeerPort port = open(ANY_PORT, artery, delivered, 1 << 20)) {
      // An Artery connection: its first bytes and what follows reach Artery, and its answer comes back.
      try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port.address().getPort())) {
        client.getOutputStream().write("AKKA\u0001hello".getBytes(StandardCharsets.US_ASCII));
        try (Socket relayed = artery.accept()) {
          assertArrayEquals("AKKA\u0001hello".getBytes(StandardCharsets.US_ASCII),
              relayed.getInputStream().readNBytes(10));
          relayed.getOutputStream().write("back".getBytes(StandardCharsets.US_ASCII));
          assertArrayEquals("back".getBytes(StandardCharsets.US_ASCII), client.getInputStream().readNBytes(4));
        }
      }

      RaftStreams streams = new RaftStreams(Map.of(2L, url(port)), StreamSockets.PLAIN, PeerTraffic.NONE);
      try {
        until(() -> streams.send(2, append(1, CLUSTER)), "the stream never came up");
        streams.send(2, append(2, CLUSTER + 1)); // another cluster's: dropped on arrival
        for (int i = 3; i <= 2000; i++) {
          assertTrue(streams.send(2, append(i, CLUSTER)));
        }
        until(() -> delivered.size() >= 1999, "not every message arrived");
        assertEquals(1999, delivered.size());
        for (int i = 0; i < delivered.size(); i++) {
          Message m = delivered.get(i);
          assertEquals(i == 0 ? 1 : i + 2, m.index(), "out of order at " + i);
          assertEquals(1, m.from());
          assertEquals(2, m.to());
          assertEquals(1, m.entries().size());
        }
      } finally {
        streams.close();
      }
    }
  }

  @Test
  void aStreamIsRefusedUntilItsPeerListensAndReconnectsAfterThePeerRestarts() throws Exception {
    List<Message> delivered = new CopyOnWriteArrayList<>();
    InetSocketAddress listen;
    try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      listen = (InetSocketAddress) free.getLocalSocketAddress();
    }
    RaftStreams streams = new RaftStreams(Map.of(2L, URI.create("http://127.0.0.1:" + listen.getPort())),
        StreamSockets.PLAIN, PeerTraffic.NONE);
    try {
      assertFalse(streams.send(2, append(1, CLUSTER)), "a stream to nothing is not up");
      for (int incarnation = 1; incarnation <= 2; incarnation++) {
        try (ServerSocket artery = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
             PeerPort port = open(listen, artery, delivered, 1 << 20)) {
          long index = incarnation * 100;
          // Messages queued on a connection that died with the peer's last incarnation are lost
          // (as Raft allows); the stream is dialed again and carries the next ones.
          until(() -> streams.send(2, append(index, CLUSTER)) && delivered.stream().anyMatch(m -> m.index() == index),
              "incarnation " + incarnation + " got nothing");
        }
      }
    } finally {
      streams.close();
    }
  }

  @Test
  void aMessageLongerThanTheLimitEndsTheStream() throws Exception {
    List<Message> delivered = new CopyOnWriteArrayList<>();
    try (ServerSocket artery = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
         PeerPort port = open(ANY_PORT, artery, delivered, 64);
         Socket s = new Socket(InetAddress.getLoopbackAddress(), port.address().getPort())) {
      s.getOutputStream().write(StreamWire.PREAMBLE);
      append(1, CLUSTER).writeDelimitedTo(s.getOutputStream()); // over 64 bytes with its entry
      InputStream in = s.getInputStream();
      s.setSoTimeout((int) TimeUnit.SECONDS.toMillis(10));
      assertEquals(-1, in.read(), "the member closes the stream");
      assertTrue(delivered.isEmpty());
    }
  }

  /** A plain peer port on {@code listen} of this cluster, relaying to {@code artery}, delivering into {@code delivered}. */
  private static PeerPort open(InetSocketAddress listen, ServerSocket artery, List<Message> delivered, int maxFrameBytes)
      throws IOException {
    return PeerPort.open(listen, (InetSocketAddress) artery.getLocalSocketAddress(), StreamSockets.PLAIN,
        delivered::add, PeerGate.OPEN, CLUSTER, PeerTraffic.NONE, maxFrameBytes);
  }

  private static URI url(PeerPort port) {
    return URI.create("http://127.0.0.1:" + port.address().getPort());
  }

  private static RaftMessage append(long index, long cluster) {
    return RaftMessage.newBuilder().setClusterId(cluster).setType(MessageType.APPEND_ENTRIES).setFrom(1).setTo(2)
        .setTerm(3).setIndex(index)
        .addEntries(io.akkaetcd.proto.raftpb.Entry.newBuilder().setTerm(3).setIndex(index + 1)
            .setData(com.google.protobuf.ByteString.copyFrom(new byte[100])))
        .build();
  }

  private static void until(BooleanSupplier condition, String failure) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, failure);
      Thread.onSpinWait();
    }
  }
}
