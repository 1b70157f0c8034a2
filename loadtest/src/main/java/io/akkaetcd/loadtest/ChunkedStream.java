package io.akkaetcd.loadtest;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A streamed HTTP/1.1 POST over a plain socket, for the gateway's chunked streams: the request
 * goes out with a Content-Length body, and {@link #body} is the answer's de-chunked body, read as
 * its bytes arrive (one thread, no hand-over between threads). Closing it closes the connection.
 */
final class ChunkedStream extends InputStream {
  private final Socket socket;
  private final InputStream in;
  /** Bytes left in the current chunk; -1 after the last chunk. */
  private long left;

  private ChunkedStream(Socket socket, InputStream in) {
    this.socket = socket;
    this.in = in;
  }

  /** Posts {@code body} to {@code path}; returns once the answer's head says 200 and chunked. */
  static ChunkedStream post(InetSocketAddress address, String path, String body) throws IOException {
    Socket socket = new Socket(address.getAddress(), address.getPort());
    socket.setTcpNoDelay(true);
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    OutputStream out = socket.getOutputStream();
    out.write(("POST " + path + " HTTP/1.1\r\nHost: " + address.getHostString() + ":" + address.getPort()
        + "\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    out.write(bytes);
    out.flush();
    InputStream in = new BufferedInputStream(socket.getInputStream());
    String status = line(in);
    boolean chunked = false;
    for (String field = line(in); !field.isEmpty(); field = line(in)) {
      chunked |= field.toLowerCase().startsWith("transfer-encoding:") && field.toLowerCase().contains("chunked");
    }
    if (!status.startsWith("HTTP/1.1 200") || !chunked) {
      socket.close();
      throw new IOException("not a chunked 200 answer: " + status);
    }
    return new ChunkedStream(socket, in);
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (left == 0) {
      String size = line(in);
      int semicolon = size.indexOf(';');
      left = Long.parseLong((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
      if (left == 0) left = -1;
    }
    if (left < 0) return -1;
    int n = in.read(b, off, (int) Math.min(len, left));
    if (n < 0) throw new IOException("the answer ended inside a chunk");
    left -= n;
    if (left == 0) line(in); // the CRLF after the chunk's data
    return n;
  }

  /** One CRLF-terminated line of the head or the chunk framing, without its CRLF. */
  private static String line(InputStream in) throws IOException {
    StringBuilder s = new StringBuilder();
    for (int c = in.read(); c != '\n'; c = in.read()) {
      if (c < 0) throw new IOException("connection closed");
      if (c != '\r') s.append((char) c);
    }
    return s.toString();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
