package io.akkaetcd.raft.peer;

import io.akkaetcd.proto.raftpb.RaftMessage;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The Raft stream to one peer: a connection this member dials and only writes to, and the thread
 * that writes it (etcd's streamWriter). Messages wait in a bounded queue (etcd's streamBufSize);
 * one that finds it full is dropped, as Raft allows. While no connection is up, {@link #offer}
 * refuses, and the caller sends by the other way (Artery).
 *
 * <p>A connection that fails, or whose write has not finished within the stall limit (a peer
 * behind a cut link, {@link #closeIfStalled}), is closed with what its queue held, and dialed again
 * after {@value #REDIAL_MILLIS} ms. Order: one connection at a time, written by one thread in queue
 * order, so a peer reads this member's stream messages in the order they were sent.
 */
final class StreamOut {
  /** etcd's streamBufSize. */
  static final int QUEUE = 4096;
  /** etcd's peer dial timeout. */
  static final int DIAL_TIMEOUT_MILLIS = 1000;
  static final long REDIAL_MILLIS = 100;

  private final long peerId;
  private final StreamSockets sockets;
  private final PeerTraffic traffic;
  private final ArrayBlockingQueue<RaftMessage> queue = new ArrayBlockingQueue<>(QUEUE);
  private final Thread writer;
  private volatile InetSocketAddress address;
  private volatile boolean connected;
  private volatile boolean closed;
  /** The dialed socket under any TLS, closed to break a stalled write. */
  private volatile Socket raw;
  /** When the write in progress began (System.nanoTime), or 0 when none is. */
  private volatile long writingSince;

  StreamOut(long peerId, InetSocketAddress address, StreamSockets sockets, PeerTraffic traffic) {
    this.peerId = peerId;
    this.address = address;
    this.sockets = sockets;
    this.traffic = traffic;
    this.writer = new Thread(this::run, "raft-stream-to-" + Long.toHexString(peerId));
    writer.setDaemon(true);
    writer.start();
  }

  /** Queues {@code w} if the stream is up (dropping it if the queue is full); false if it is not up. */
  boolean offer(RaftMessage w) {
    if (!connected) {
      return false;
    }
    if (!queue.offer(w)) {
      traffic.sendFailed(peerId);
    }
    return true;
  }

  /** The peer moved: the stream is dialed again at {@code to}. */
  void moveTo(InetSocketAddress to) {
    if (!to.equals(address)) {
      address = to;
      closeSocket();
    }
  }

  /** Closes the connection if a write has been blocked for {@code limitNanos} or more. */
  void closeIfStalled(long now, long limitNanos) {
    long since = writingSince;
    if (since != 0 && now - since >= limitNanos) {
      closeSocket();
    }
  }

  void close() {
    closed = true;
    connected = false;
    closeSocket();
    writer.interrupt();
  }

  private void closeSocket() {
    Socket s = raw;
    if (s != null) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing is all that is wanted
      }
    }
  }

  private void run() {
    while (!closed) {
      try {
        InetSocketAddress to = address;
        // resolved at each dial: a peer's name may resolve only once the peer is up (a pod, say)
        Socket s = StreamSockets.connect(new InetSocketAddress(to.getHostString(), to.getPort()), DIAL_TIMEOUT_MILLIS);
        raw = s;
        if (closed) {
          break;
        }
        s.getOutputStream().write(StreamWire.PREAMBLE);
        Socket secured = sockets.dialed(s, to.getHostString(), to.getPort());
        write(new BufferedOutputStream(secured.getOutputStream(), 64 * 1024));
      } catch (IOException | RuntimeException e) {
        // a refused dial, a reset or a stalled write: dial again, as Raft retransmits what matters
      } catch (InterruptedException e) {
        break;
      } finally {
        connected = false;
        writingSince = 0;
        closeSocket();
        raw = null;
        for (RaftMessage dropped; (dropped = queue.poll()) != null; ) {
          traffic.sendFailed(peerId);
        }
      }
      try {
        Thread.sleep(REDIAL_MILLIS);
      } catch (InterruptedException e) {
        break;
      }
    }
  }

  /** Writes queued messages until the connection fails or the stream closes; flushes when the queue empties. */
  private void write(OutputStream out) throws IOException, InterruptedException {
    connected = true;
    while (!closed) {
      RaftMessage w = queue.poll();
      if (w == null) {
        writingSince = System.nanoTime();
        out.flush();
        writingSince = 0;
        w = queue.poll(1, TimeUnit.SECONDS);
        if (w == null) {
          continue;
        }
      }
      writingSince = System.nanoTime();
      w.writeDelimitedTo(out);
      writingSince = 0;
    }
  }
}
