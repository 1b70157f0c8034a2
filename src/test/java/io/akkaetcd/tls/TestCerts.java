package io.akkaetcd.tls;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.CRLReason;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.X509v2CRLBuilder;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A test certificate authority writing PEM files into a directory, for the TLS unit tests and the
 * end-to-end tests that give the same files to etcdctl, etcd and akka-etcd:
 *
 * <pre>
 *   TestCerts ca = TestCerts.create(dir);           // dir/ca.pem (+ ca-key.pem)
 *   Issued server = ca.server("server");            // dir/server.pem, server-key.pem: SANs 127.0.0.1, ::1, localhost
 *   Issued root = ca.client("root");                // dir/root.pem, root-key.pem: CN=root, client auth
 *   Path crl = ca.crl(root);                        // dir/crl.pem revoking root
 *   TestCerts other = TestCerts.create(dir.resolve("unknown-ca"));  // a CA nobody trusts
 * </pre>
 *
 * Keys are EC P-256 unless a {@link KeyFormat} says otherwise. Server certificates carry both
 * server and client auth, as etcd's peer certificates must.
 */
public final class TestCerts {
  /** The private key encodings Go's tls.X509KeyPair reads, so each can be tested. */
  public enum KeyFormat { EC_PKCS8, EC_SEC1, RSA_PKCS1, RSA_PKCS8 }

  /** One issued certificate and its files. */
  public record Issued(Path cert, Path key, X509Certificate certificate, PrivateKey privateKey) {}

  private static final AtomicLong SERIALS = new AtomicLong(System.nanoTime() & 0xffffffffL);
  private final Path dir;
  private final String name;
  private final KeyPair caKeys;
  private final X509Certificate caCert;

  private TestCerts(Path dir, String name, KeyPair caKeys, X509Certificate caCert) {
    this.dir = dir;
    this.name = name;
    this.caKeys = caKeys;
    this.caCert = caCert;
  }

  /** A new CA "CN=akka-etcd test CA" in {@code dir}: ca.pem and ca-key.pem. */
  public static TestCerts create(Path dir) {
    return create(dir, "akka-etcd test CA");
  }

  public static TestCerts create(Path dir, String caName) {
    try {
      Files.createDirectories(dir);
      KeyPair keys = keyPair(KeyFormat.EC_PKCS8);
      X500Name subject = new X500Name("CN=" + caName + ",O=akka-etcd");
      X509v3CertificateBuilder b = builder(subject, subject, keys, Duration.ofDays(30));
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      b.addExtension(Extension.subjectKeyIdentifier, false,
          new JcaX509ExtensionUtils().createSubjectKeyIdentifier(keys.getPublic()));
      X509Certificate cert = convert(b.build(signer(keys)));
      TestCerts ca = new TestCerts(dir, caName, keys, cert);
      write(dir.resolve("ca.pem"), pem(cert));
      write(dir.resolve("ca-key.pem"), pem(new JcaPKCS8Generator(keys.getPrivate(), null)));
      return ca;
    } catch (IOException | GeneralSecurityException | org.bouncycastle.operator.OperatorCreationException e) {
      throw new IllegalStateException(e);
    }
  }

  public Path dir() {
    return dir;
  }

  /** The CA certificate file, for --trusted-ca-file, --cacert. */
  public Path caFile() {
    return dir.resolve("ca.pem");
  }

  public X509Certificate caCertificate() {
    return caCert;
  }

  /** A server (and peer) certificate for 127.0.0.1, ::1 and localhost, CN {@code name}. */
  public Issued server(String name) {
    return issue(name, name, List.of("127.0.0.1", "::1", "localhost"), true, KeyFormat.EC_PKCS8);
  }

  /** A client certificate with CN {@code cn} (etcd's user under --client-cert-auth). */
  public Issued client(String cn) {
    return issue(cn, cn, List.of(), false, KeyFormat.EC_PKCS8);
  }

  /**
   * A client certificate without a CN: the one etcd's HTTPS gateway serves under --client-cert-auth
   * (it answers 400 to a certificate with a CN, which it would not use as the user).
   */
  public Issued clientWithoutCn(String fileName) {
    return issue(fileName, null, List.of(), false, KeyFormat.EC_PKCS8);
  }

  /**
   * A certificate signed by this CA, written to {@code <fileName>.pem} and {@code <fileName>-key.pem}
   * (replaced atomically if they exist, as an operator's rotation would). {@code sans} entries that
   * look like IP addresses become IP SANs. {@code server}: server and client auth; else client only.
   * {@code cn} null: a subject without a CN.
   */
  public Issued issue(String fileName, String cn, List<String> sans, boolean server, KeyFormat format) {
    try {
      KeyPair keys = keyPair(format);
      X509v3CertificateBuilder b = builder(X500Name.getInstance(caCert.getSubjectX500Principal().getEncoded()),
          new X500Name(cn == null ? "O=akka-etcd" : "CN=" + cn + ",O=akka-etcd"), keys, Duration.ofDays(7));
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
      b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(server
          ? new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}
          : new KeyPurposeId[] {KeyPurposeId.id_kp_clientAuth}));
      b.addExtension(Extension.authorityKeyIdentifier, false,
          new JcaX509ExtensionUtils().createAuthorityKeyIdentifier(caCert));
      if (!sans.isEmpty()) {
        List<GeneralName> names = new ArrayList<>();
        for (String san : sans) {
          boolean ip = san.contains(":") || san.matches("\\d+\\.\\d+\\.\\d+\\.\\d+");
          names.add(new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, san));
        }
        b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names.toArray(GeneralName[]::new)));
      }
      X509Certificate cert = convert(b.build(signer(caKeys)));
      Path certFile = dir.resolve(fileName + ".pem");
      Path keyFile = dir.resolve(fileName + "-key.pem");
      String keyPem = switch (format) {
        case EC_PKCS8, RSA_PKCS8 -> pem(new JcaPKCS8Generator(keys.getPrivate(), null));
        case EC_SEC1 -> PemFiles.privateKeyPem(keys.getPrivate());
        case RSA_PKCS1 -> pem(keys.getPrivate());
      };
      write(keyFile, keyPem);
      write(certFile, pem(cert));
      return new Issued(certFile, keyFile, cert, keys.getPrivate());
    } catch (IOException | GeneralSecurityException | org.bouncycastle.operator.OperatorCreationException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A CRL of this CA revoking {@code revoked} (none: an empty CRL), written to crl.pem. */
  public Path crl(Issued... revoked) {
    try {
      Instant now = Instant.now();
      X509v2CRLBuilder b = new X509v2CRLBuilder(X500Name.getInstance(caCert.getSubjectX500Principal().getEncoded()),
          Date.from(now.minusSeconds(60)));
      b.setNextUpdate(Date.from(now.plus(Duration.ofDays(7))));
      for (Issued r : revoked) {
        b.addCRLEntry(r.certificate().getSerialNumber(), Date.from(now.minusSeconds(60)), CRLReason.keyCompromise);
      }
      Path file = dir.resolve("crl.pem");
      write(file, pem(b.build(signer(caKeys))));
      return file;
    } catch (IOException | org.bouncycastle.operator.OperatorCreationException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public String toString() {
    return name + " in " + dir;
  }

  private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys, Duration validity) {
    Instant now = Instant.now();
    return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIALS.incrementAndGet()),
        Date.from(now.minus(Duration.ofMinutes(5))), Date.from(now.plus(validity)), subject, keys.getPublic());
  }

  private static KeyPair keyPair(KeyFormat format) throws GeneralSecurityException {
    boolean rsa = format == KeyFormat.RSA_PKCS1 || format == KeyFormat.RSA_PKCS8;
    KeyPairGenerator g = KeyPairGenerator.getInstance(rsa ? "RSA" : "EC");
    if (rsa) {
      g.initialize(2048);
    } else {
      g.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
    }
    return g.generateKeyPair();
  }

  private static ContentSigner signer(KeyPair keys) throws org.bouncycastle.operator.OperatorCreationException {
    String algorithm = keys.getPrivate().getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
    return new JcaContentSignerBuilder(algorithm).build(keys.getPrivate());
  }

  private static X509Certificate convert(X509CertificateHolder holder) throws GeneralSecurityException {
    return new JcaX509CertificateConverter().getCertificate(holder);
  }

  private static String pem(Object o) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(o);
    }
    return out.toString();
  }

  /** Writes through a temporary file and an atomic move, so a reader sees the old or the new file. */
  private static void write(Path file, String text) throws IOException {
    Path tmp = Files.createTempFile(file.getParent(), file.getFileName().toString(), ".tmp");
    Files.writeString(tmp, text, StandardCharsets.US_ASCII);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
