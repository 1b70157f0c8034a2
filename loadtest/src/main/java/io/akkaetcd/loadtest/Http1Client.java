package io.akkaetcd.loadtest;

import io.grpc.Status;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * A lean HTTP/1.1 keep-alive client for the gateway workloads, so that the tool's own cost per
 * request stays well below a server's: one non-blocking connection per closed-loop client, all
 * driven by one selector thread; a request is a POST with a Content-Length body written from a
 * buffer its connection reuses, and the answer (Content-Length or chunked) is read in place.
 * Invariant: at most one request outstanding per connection (the closed loop's clients).
 */
final class Http1Client implements AutoCloseable {
  private final Selector selector;
  private final List<Connection> connections = new ArrayList<>();
  /** Connections whose request was posted off the selector thread, to be written on it. */
  private final Queue<Connection> posted = new ConcurrentLinkedQueue<>();
  private final Thread io;
  private volatile boolean closed;

  /** Opens {@code count} connections to {@code address}, each for POSTs to {@code path}. */
  Http1Client(InetSocketAddress address, String path, int count) {
    try {
      selector = Selector.open();
      byte[] head = ("POST " + path + " HTTP/1.1\r\nHost: " + address.getHostString() + ":" + address.getPort()
          + "\r\nContent-Type: application/json\r\nContent-Length: ").getBytes(StandardCharsets.US_ASCII);
      for (int i = 0; i < count; i++) {
        SocketChannel ch = SocketChannel.open(address);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.configureBlocking(false);
        Connection c = new Connection(ch, head);
        c.key = ch.register(selector, SelectionKey.OP_READ, c);
        connections.add(c);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    io = new Thread(this::loop, "http1-client-io");
    io.setDaemon(true);
    io.start();
  }

  List<Connection> connections() {
    return connections;
  }

  private void loop() {
    try {
      while (!closed) {
        selector.select();
        for (Connection c; (c = posted.poll()) != null; ) c.flush();
        for (SelectionKey k : selector.selectedKeys()) {
          Connection c = (Connection) k.attachment();
          if (k.isValid() && k.isWritable()) c.flush();
          if (k.isValid() && k.isReadable()) c.read();
        }
        selector.selectedKeys().clear();
      }
    } catch (IOException | RuntimeException e) {
      if (!closed) throw new IllegalStateException("http1 client loop failed", e);
    }
  }

  @Override
  public void close() {
    closed = true;
    selector.wakeup();
    try {
      io.join(5000);
      for (Connection c : connections) c.channel.close();
      selector.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One keep-alive connection; confined to the selector thread but for {@link #post}'s hand-over. */
  final class Connection {
    private final SocketChannel channel;
    private final byte[] head;
    private ByteBuffer out = ByteBuffer.allocate(4096);
    private ByteBuffer in = ByteBuffer.allocate(16 * 1024);
    private final byte[] scratch = new byte[4096];
    private SelectionKey key;
    private Consumer<Status> done;

    private Connection(SocketChannel channel, byte[] head) {
      this.channel = channel;
      this.head = head;
    }

    /** A buffer for the caller to build a body in before {@link #post}; reused by every request. */
    byte[] scratch() {
      return scratch;
    }

    /** Sends {@code body[0, length)}; {@code done} gets Status.OK for a 200, else the failure. */
    void post(byte[] body, int length, Consumer<Status> done) {
      this.done = done;
      String len = Integer.toString(length);
      int size = head.length + len.length() + 4 + length;
      if (out.capacity() < size) out = ByteBuffer.allocate(size);
      out.clear();
      out.put(head);
      for (int i = 0; i < len.length(); i++) out.put((byte) len.charAt(i));
      out.put((byte) '\r').put((byte) '\n').put((byte) '\r').put((byte) '\n');
      out.put(body, 0, length);
      out.flip();
      if (Thread.currentThread() == io) {
        flush();
      } else {
        posted.add(this);
        selector.wakeup();
      }
    }

    private void flush() {
      try {
        if (!key.isValid()) throw new IOException("connection closed");
        channel.write(out);
      } catch (IOException e) {
        fail(e);
        return;
      }
      key.interestOps(out.hasRemaining() ? SelectionKey.OP_READ | SelectionKey.OP_WRITE : SelectionKey.OP_READ);
    }

    private void read() {
      int n;
      try {
        if (!in.hasRemaining()) in = ByteBuffer.allocate(in.capacity() * 2).put(in.flip());
        n = channel.read(in);
      } catch (IOException e) {
        fail(e);
        return;
      }
      if (n < 0) {
        fail(new IOException("connection closed by the server"));
        return;
      }
      int end = HttpAnswer.end(in.array(), in.position());
      if (end < 0) return;
      int status = HttpAnswer.status(in.array());
      Status result = status == 200 ? Status.OK
          : Status.UNKNOWN.withDescription(new String(in.array(), 0, end, StandardCharsets.UTF_8));
      // the one answer outstanding is complete: keep only what follows it (nothing, normally)
      in.flip().position(end);
      in.compact();
      Consumer<Status> callback = done;
      done = null;
      if (callback != null) callback.accept(result);
    }

    private void fail(IOException e) {
      key.cancel();
      Consumer<Status> callback = done;
      done = null;
      if (callback != null && !closed) callback.accept(Status.UNAVAILABLE.withDescription(String.valueOf(e)));
    }
  }
}
