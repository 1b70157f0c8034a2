package io.akkaetcd.tls;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

/**
 * A loopback TLS server built from a {@link TlsConfig}: for each connection it completes the
 * handshake, answers "hello <client CN or ->" and then echoes lines. Each connection's outcome
 * (its session or the handshake failure) is queued for the test to take. The socket is bound to
 * port 0 by the server itself, so no other process can take the port in between.
 */
final class TlsEchoServer implements AutoCloseable {
  /** A connection's outcome as the server saw it: the client's CN, or why the handshake failed. */
  record Outcome(String user, Throwable failure) {
    String failureText() {
      StringBuilder b = new StringBuilder();
      for (Throwable t = failure; t != null; t = t.getCause()) {
        b.append(t.getClass().getSimpleName()).append(": ").append(t.getMessage()).append(" / ");
      }
      return b.toString();
    }
  }

  private final SSLServerSocket listener;
  private final TlsConfig config;
  private final BlockingQueue<Outcome> outcomes = new LinkedBlockingQueue<>();
  private final List<SSLSocket> open = new CopyOnWriteArrayList<>();
  private final Thread acceptor;

  TlsEchoServer(TlsConfig config) throws IOException {
    this.config = config;
    this.listener = (SSLServerSocket) config.context().getServerSocketFactory().createServerSocket();
    config.configure(listener);
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    this.acceptor = new Thread(this::acceptLoop, "tls-echo-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  int port() {
    return listener.getLocalPort();
  }

  /** The next connection's outcome, waiting up to 10 seconds. */
  Outcome nextOutcome() throws InterruptedException {
    Outcome o = outcomes.poll(10, TimeUnit.SECONDS);
    if (o == null) {
      throw new AssertionError("no connection reached the server within 10s");
    }
    return o;
  }

  private void acceptLoop() {
    while (!listener.isClosed()) {
      try {
        SSLSocket socket = (SSLSocket) listener.accept();
        open.add(socket);
        Thread t = new Thread(() -> serve(socket), "tls-echo-conn");
        t.setDaemon(true);
        t.start();
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(SSLSocket socket) {
    try (socket) {
      config.configureAccepted(socket);
      socket.setSoTimeout(20_000);
      try {
        socket.startHandshake();
      } catch (IOException e) {
        outcomes.add(new Outcome(null, e));
        return;
      }
      String user = CertIdentity.user(socket.getSession()).orElse("-");
      PrintWriter out = new PrintWriter(socket.getOutputStream(), true, StandardCharsets.UTF_8);
      BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      // TLS 1.3: the client's certificate is checked when its first data arrives; read first.
      String line = in.readLine();
      outcomes.add(new Outcome(user, null));
      while (line != null) {
        out.println("echo " + line);
        line = in.readLine();
      }
    } catch (IOException e) {
      outcomes.add(new Outcome(null, e));
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    for (SSLSocket s : open) {
      s.close();
    }
  }
}
