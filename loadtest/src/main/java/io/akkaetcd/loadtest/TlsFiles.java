package io.akkaetcd.loadtest;

import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * A self-made CA and one certificate it signed (ECDSA P-256, for 127.0.0.1 and localhost, server
 * and client use), made with openssl in the run's directory. Every member of both servers presents
 * the same certificate to clients and peers, and the tool's clients trust only the CA.
 */
final class TlsFiles {
  final Path ca;
  final Path cert;
  final Path key;
  private SslContext client;

  private TlsFiles(Path dir) {
    ca = dir.resolve("ca.pem");
    cert = dir.resolve("server.pem");
    key = dir.resolve("server-key.pem");
  }

  /** Makes the CA and the certificate under {@code dir}. */
  static TlsFiles create(Path dir) {
    TlsFiles t = new TlsFiles(dir);
    try {
      Files.createDirectories(dir);
      Path ext = dir.resolve("server.ext");
      Files.writeString(ext, "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
          + "keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n");
      Path caKey = dir.resolve("ca-key.pem");
      Path csr = dir.resolve("server.csr");
      openssl(dir, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
          "-keyout", caKey.toString(), "-out", t.ca.toString(), "-days", "7", "-subj", "/CN=loadtest CA");
      openssl(dir, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
          "-keyout", t.key.toString(), "-out", csr.toString(), "-subj", "/CN=loadtest server");
      openssl(dir, "x509", "-req", "-in", csr.toString(), "-CA", t.ca.toString(), "-CAkey", caKey.toString(),
          "-CAcreateserial", "-out", t.cert.toString(), "-days", "7", "-extfile", ext.toString());
      return t;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void openssl(Path dir, String... args) throws IOException {
    List<String> cmd = new java.util.ArrayList<>(List.of("openssl"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (p.waitFor() != 0) throw new IOException(String.join(" ", cmd) + " failed:\n" + out);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException(e);
    }
  }

  /** etcd's flags serving clients and peers with the certificate; peers must present one the CA signed. */
  List<String> serverFlags() {
    return List.of("--cert-file", cert.toString(), "--key-file", key.toString(),
        "--peer-cert-file", cert.toString(), "--peer-key-file", key.toString(),
        "--peer-trusted-ca-file", ca.toString(), "--peer-client-cert-auth");
  }

  /** The tool's access over TLS: the JDK's provider, trusting the CA, one context (and session cache) for all. */
  synchronized ClientAccess access() {
    return new ClientAccess(clientContext(ca), null, null);
  }

  private SslContext clientContext(Path trusted) {
    if (client == null) client = jdkClient(trusted);
    return client;
  }

  /** A JDK-provider client context trusting the PEM CA file {@code trusted} (etcd benchmark's --cacert). */
  static SslContext jdkClient(Path trusted) {
    try {
      return GrpcSslContexts.configure(SslContextBuilder.forClient().trustManager(trusted.toFile()), SslProvider.JDK).build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
