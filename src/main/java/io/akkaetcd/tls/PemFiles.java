package io.akkaetcd.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.sec.ECPrivateKey;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.util.io.pem.PemObject;
import org.bouncycastle.util.io.pem.PemWriter;

/**
 * Reads the PEM files etcd's flags name, as Go's {@code tls.X509KeyPair} and
 * {@code tlsutil.NewCertPool} read them: certificates in file order, the first private key in
 * PKCS#8, PKCS#1 (RSA) or SEC 1 (EC) form. Failures are {@link IOException}s with Go's texts.
 */
final class PemFiles {
  private PemFiles() {}

  /** A certificate chain (leaf first) and its private key, checked to belong together. */
  record KeyPair(List<X509Certificate> chain, PrivateKey key) {
    KeyPair {
      chain = List.copyOf(chain);
    }
  }

  static byte[] read(Path file) throws IOException {
    try {
      return Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new IOException("open " + file + ": no such file or directory", e);
    }
  }

  static KeyPair keyPair(byte[] certPem, byte[] keyPem) throws IOException {
    List<X509Certificate> chain = certificates(certPem);
    if (chain.isEmpty()) {
      throw new IOException("tls: failed to find any PEM data in certificate input");
    }
    PrivateKey key = privateKey(keyPem);
    if (!matches(chain.get(0), key)) {
      throw new IOException("tls: private key does not match public key");
    }
    return new KeyPair(chain, key);
  }

  /** Every CERTIFICATE block, in order; other blocks are skipped as Go skips them. */
  static List<X509Certificate> certificates(byte[] pem) throws IOException {
    List<X509Certificate> out = new ArrayList<>();
    JcaX509CertificateConverter converter = new JcaX509CertificateConverter();
    try (PEMParser parser = new PEMParser(reader(pem))) {
      for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
        if (o instanceof X509CertificateHolder holder) {
          out.add(converter.getCertificate(holder));
        }
      }
    } catch (CertificateException e) {
      throw new IOException("x509: " + e.getMessage(), e);
    }
    return out;
  }

  static PrivateKey privateKey(byte[] pem) throws IOException {
    JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
    try (PEMParser parser = new PEMParser(reader(pem))) {
      for (Object o = parser.readObject(); o != null; o = parser.readObject()) {
        if (o instanceof PEMKeyPair pair) {
          return converter.getPrivateKey(pair.getPrivateKeyInfo());
        }
        if (o instanceof PrivateKeyInfo info) {
          return converter.getPrivateKey(info);
        }
      }
    }
    throw new IOException("tls: failed to find any PEM data in key input");
  }

  /** The trusted CA bundle (tlsutil.NewCertPool): every certificate of the file. */
  static List<X509Certificate> caBundle(Path file) throws IOException {
    List<X509Certificate> cas = certificates(read(file));
    if (cas.isEmpty()) {
      throw new IOException("tls: failed to find any PEM data in certificate input");
    }
    return cas;
  }

  /** A CRL in PEM or DER, as Go's x509.ParseCRL takes either. */
  static X509CRL crl(byte[] bytes) throws IOException {
    try {
      return (X509CRL) CertificateFactory.getInstance("X.509").generateCRL(new ByteArrayInputStream(bytes));
    } catch (GeneralSecurityException e) {
      throw new IOException("x509: " + e.getMessage(), e);
    }
  }

  /**
   * PEM of a private key as Go writes it: an EC key as SEC 1 "EC PRIVATE KEY" with its curve
   * named inside (x509.MarshalECPrivateKey; the JDK's PKCS#8 encoding leaves the curve outside),
   * any other key as PKCS#8 "PRIVATE KEY".
   */
  static String privateKeyPem(PrivateKey key) throws IOException {
    PrivateKeyInfo info = PrivateKeyInfo.getInstance(key.getEncoded());
    PemObject pem;
    if (KeyTypes.of(key).equals("EC")) {
      ECPrivateKey inner = ECPrivateKey.getInstance(info.parsePrivateKey());
      int orderBits = ((java.security.interfaces.ECPrivateKey) key).getParams().getOrder().bitLength();
      ECPrivateKey sec1 = new ECPrivateKey(orderBits, inner.getKey(), inner.getPublicKey(),
          info.getPrivateKeyAlgorithm().getParameters());
      pem = new PemObject("EC PRIVATE KEY", sec1.getEncoded());
    } else {
      pem = new PemObject("PRIVATE KEY", info.getEncoded());
    }
    StringWriter out = new StringWriter();
    try (PemWriter writer = new PemWriter(out)) {
      writer.writeObject(pem);
    }
    return out.toString();
  }

  /** Whether {@code key} signs what the certificate's public key verifies (any key type). */
  private static boolean matches(X509Certificate cert, PrivateKey key) {
    String algorithm = switch (KeyTypes.of(key)) {
      case "RSA" -> "SHA256withRSA";
      case "EC" -> "SHA256withECDSA";
      case "Ed25519" -> "Ed25519";
      default -> null;
    };
    if (algorithm == null || !KeyTypes.of(cert.getPublicKey()).equals(KeyTypes.of(key))) {
      return false;
    }
    try {
      byte[] probe = "akka-etcd key pair check".getBytes(StandardCharsets.US_ASCII);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(probe);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(cert.getPublicKey());
      verifier.update(probe);
      return verifier.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static Reader reader(byte[] pem) {
    return new InputStreamReader(new ByteArrayInputStream(pem), StandardCharsets.US_ASCII);
  }
}
