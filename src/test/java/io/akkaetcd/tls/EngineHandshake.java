package io.akkaetcd.tls;

import java.nio.ByteBuffer;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLEngineResult.HandshakeStatus;
import javax.net.ssl.SSLException;

/** Runs a TLS handshake between two engines in memory, as a transport would between sockets. */
final class EngineHandshake {
  private EngineHandshake() {}

  /** Completes the handshake, or throws the first side's failure. */
  static void run(SSLEngine client, SSLEngine server) throws SSLException {
    int packet = Math.max(client.getSession().getPacketBufferSize(), server.getSession().getPacketBufferSize());
    int app = Math.max(client.getSession().getApplicationBufferSize(), server.getSession().getApplicationBufferSize());
    ByteBuffer toServer = ByteBuffer.allocate(packet * 4);
    ByteBuffer toClient = ByteBuffer.allocate(packet * 4);
    ByteBuffer sink = ByteBuffer.allocate(app * 4);
    ByteBuffer empty = ByteBuffer.allocate(0);
    client.beginHandshake();
    server.beginHandshake();
    boolean firstRequestSent = false;
    for (int round = 0; round < 200; round++) {
      step(client, empty, toServer, toClient, sink);
      if (done(client) && !done(server) && toServer.position() == 0 && !firstRequestSent) {
        // A client speaks first once its side is done (HTTP/2's preface); BoringSSL completes the
        // server's side when that arrives, not on the client's Finished alone.
        client.wrap(ByteBuffer.wrap("ping".getBytes(java.nio.charset.StandardCharsets.US_ASCII)), toServer);
        firstRequestSent = true;
      }
      step(server, empty, toClient, toServer, sink);
      if (done(client) && done(server) && toServer.position() == 0 && toClient.position() == 0) {
        return;
      }
    }
    throw new SSLException("handshake did not finish in 200 rounds");
  }

  private static boolean done(SSLEngine e) {
    HandshakeStatus s = e.getHandshakeStatus();
    return s == HandshakeStatus.NOT_HANDSHAKING || s == HandshakeStatus.FINISHED;
  }

  /** One turn of {@code engine}: run tasks, read what arrived in {@code in}, write into {@code out}. */
  private static void step(SSLEngine engine, ByteBuffer empty, ByteBuffer out, ByteBuffer in, ByteBuffer sink)
      throws SSLException {
    runTasks(engine);
    in.flip();
    while (in.hasRemaining()) {
      SSLEngineResult r = engine.unwrap(in, sink);
      runTasks(engine);
      if (r.getStatus() != SSLEngineResult.Status.OK || r.bytesConsumed() == 0) {
        break;
      }
    }
    in.compact();
    sink.clear();
    while (engine.getHandshakeStatus() == HandshakeStatus.NEED_WRAP) {
      SSLEngineResult r = engine.wrap(empty, out);
      runTasks(engine);
      if (r.getStatus() == SSLEngineResult.Status.CLOSED) {
        break;
      }
    }
  }

  private static void runTasks(SSLEngine engine) {
    for (Runnable task = engine.getDelegatedTask(); task != null; task = engine.getDelegatedTask()) {
      task.run();
    }
  }
}
