package io.akkaetcd.raft.peer;

import com.google.protobuf.CodedInputStream;
import io.akkaetcd.proto.raftpb.RaftMessage;
import io.akkaetcd.raft.Message;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The member's peer port (its first --listen-peer-urls), shared by two kinds of connection, told
 * apart by their first bytes ({@link StreamWire}): Raft streams from the peers, read here and
 * handed to the Raft member ({@link PeerReceipt}'s rules), and Artery's connections (cluster
 * gossip, snapshots, link probes, asks), passed on byte for byte to Artery, which listens on a
 * port of its own that only this class dials. One port per member, as etcd has.
 *
 * <p>A peer that restarts opens a new stream; the older one from the same member is closed when
 * the new one delivers its first message. A connection that sends nothing recognisable within
 * {@value #SNIFF_MILLIS} ms is closed.
 */
public final class PeerPort implements AutoCloseable {
  private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(PeerPort.class);
  static final int SNIFF_MILLIS = 10_000;

  private final ServerSocket server;
  private final InetSocketAddress artery;
  private final StreamSockets sockets;
  private final PeerReceipt receipt;
  private final int maxFrameBytes;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final Map<Long, Socket> streamFrom = new ConcurrentHashMap<>();
  private volatile Thread acceptor;
  private volatile boolean closed;

  private PeerPort(ServerSocket server, InetSocketAddress artery, StreamSockets sockets, PeerReceipt receipt,
      int maxFrameBytes) {
    this.server = server;
    this.artery = artery;
    this.sockets = sockets;
    this.receipt = receipt;
    this.maxFrameBytes = maxFrameBytes;
  }

  /**
   * Listens on {@code listen}; Raft messages of cluster {@code clusterId} from peers the gate lets
   * through go to {@code deliver}, every other connection to Artery at {@code artery}. A message
   * longer than {@code maxFrameBytes} closes its stream.
   */
  public static PeerPort open(InetSocketAddress listen, InetSocketAddress artery, StreamSockets sockets,
      Consumer<Message> deliver, PeerGate gate, long clusterId, PeerTraffic traffic, int maxFrameBytes)
      throws IOException {
    ServerSocket server = new ServerSocket();
    try {
      server.setReuseAddress(true);
      server.bind(listen, 128);
    } catch (IOException e) {
      server.close();
      throw e;
    }
    PeerPort port = new PeerPort(server, artery, sockets, new PeerReceipt(deliver, gate, clusterId, traffic),
        maxFrameBytes);
    Thread acceptor = new Thread(port::accept, "peer-port-" + listen.getPort());
    acceptor.setDaemon(true);
    port.acceptor = acceptor;
    acceptor.start();
    return port;
  }

  /** The address it listens on. */
  public InetSocketAddress address() {
    return (InetSocketAddress) server.getLocalSocketAddress();
  }

  /**
   * Stops listening and closes every connection. Returns once the port is free: the JDK releases a
   * listening socket only after the thread in its accept has left it, and a member restarting in
   * this JVM binds the port again at once.
   */
  @Override
  public void close() {
    closed = true;
    closeQuietly(server);
    open.forEach(PeerPort::closeQuietly);
    Thread t = acceptor;
    if (t != null && t != Thread.currentThread()) {
      try {
        t.join(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void accept() {
    while (!closed) {
      try {
        Socket s = server.accept();
        s.setTcpNoDelay(true);
        open.add(s);
        Thread t = new Thread(() -> serve(s), "peer-port-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        if (!closed) {
          log.warn("peer port {}: accept failed", server.getLocalSocketAddress(), e);
        }
      }
    }
  }

  private void serve(Socket s) {
    try {
      s.setSoTimeout(SNIFF_MILLIS);
      InputStream in = s.getInputStream();
      byte[] head = in.readNBytes(StreamWire.MAGIC.length);
      if (head.length < StreamWire.MAGIC.length) {
        return;
      }
      if (Arrays.equals(head, StreamWire.MAGIC)) {
        if (!Arrays.equals(in.readNBytes(StreamWire.VERSION.length), StreamWire.VERSION)) {
          return; // a stream of a version this member does not speak
        }
        Socket secured = sockets.accepted(s);
        s.setSoTimeout(0);
        read(s, secured.getInputStream());
      } else {
        s.setSoTimeout(0);
        relayToArtery(s, head);
      }
    } catch (IOException | RuntimeException e) {
      // a reset, a failed handshake or a malformed stream: the connection ends here
    } finally {
      closeQuietly(s);
      open.remove(s);
    }
  }

  /** Reads one peer's stream until it ends, handing each message on. */
  private void read(Socket raw, InputStream secured) throws IOException {
    InputStream in = new BufferedInputStream(secured, 64 * 1024);
    long from = 0;
    try {
      while (!closed) {
        int first = in.read();
        if (first < 0) {
          return;
        }
        int length = CodedInputStream.readRawVarint32(first, in);
        if (length < 0 || length > maxFrameBytes) {
          throw new IOException("raft stream message of " + length + " bytes");
        }
        byte[] bytes = in.readNBytes(length);
        if (bytes.length < length) {
          return;
        }
        RaftMessage w = RaftMessage.parseFrom(bytes);
        if (w.getFrom() != from) {
          from = w.getFrom();
          Socket older = streamFrom.put(from, raw);
          if (older != null && older != raw) {
            closeQuietly(older); // the peer's earlier stream (an earlier incarnation, or a dead link)
          }
        }
        receipt.receive(w);
      }
    } finally {
      if (from != 0) {
        streamFrom.remove(from, raw);
      }
    }
  }

  /** Passes the connection on to Artery: {@code head} first, then every byte either way until one side ends. */
  private void relayToArtery(Socket s, byte[] head) throws IOException {
    Socket a = StreamSockets.connect(artery, StreamOut.DIAL_TIMEOUT_MILLIS);
    open.add(a);
    try {
      a.getOutputStream().write(head);
      Thread back = new Thread(() -> pump(a, s), "peer-port-relay");
      back.setDaemon(true);
      back.start();
      pump(s, a);
    } finally {
      closeQuietly(a);
      open.remove(a);
    }
  }

  /** Copies {@code from} to {@code to} until either fails or {@code from} ends; then closes both. */
  private static void pump(Socket from, Socket to) {
    byte[] buffer = new byte[64 * 1024];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      for (int n; (n = in.read(buffer)) >= 0; ) {
        out.write(buffer, 0, n);
      }
    } catch (IOException e) {
      // either side went away
    } finally {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception ignored) {
      // closing is all that is wanted
    }
  }
}
