package io.akkaetcd.tls;

import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes {@link SelfCert}'s self-signed certificate and key files. The only class of the auto TLS
 * path that names Bouncy Castle: loading its signed jars costs a start hundreds of milliseconds
 * (the JVM checks their signatures), so it is loaded only when a certificate is made.
 */
final class SelfCertIssuer {
  private static final Logger log = LoggerFactory.getLogger(SelfCert.class);

  private SelfCertIssuer() {}

  /** Writes a new certificate for {@code hosts} and its key; a signer that cannot be built is a security error. */
  static void generate(Path certFile, Path keyFile, List<String> hosts) throws IOException, GeneralSecurityException {
    try {
      issue(certFile, keyFile, hosts);
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException(e.getMessage(), e);
    }
  }

  private static void issue(Path certFile, Path keyFile, List<String> hosts)
      throws IOException, GeneralSecurityException, OperatorCreationException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp521r1"), new SecureRandom());
    KeyPair pair = generator.generateKeyPair();
    Instant now = Instant.now();
    X500Name subject = new X500Name("O=etcd");
    X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject,
        new BigInteger(128, new SecureRandom()), Date.from(now), Date.from(now.plus(SelfCert.VALIDITY)), subject, pair.getPublic());
    builder.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyEncipherment | KeyUsage.digitalSignature));
    builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_serverAuth));
    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
    List<GeneralName> names = new ArrayList<>();
    for (String host : hosts) {
      String h = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
      names.add(new GeneralName(GoHostnames.isIpLiteral(h) ? GeneralName.iPAddress : GeneralName.dNSName, h));
    }
    if (!names.isEmpty()) {
      builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names.toArray(GeneralName[]::new)));
    }
    var signer = new JcaContentSignerBuilder("SHA512withECDSA").build(pair.getPrivate());
    Files.writeString(certFile, pem(builder.build(signer)), StandardCharsets.US_ASCII);
    log.info("created cert file {}", certFile);
    writePrivate(keyFile, PemFiles.privateKeyPem(pair.getPrivate()));
    log.info("created key file {}", keyFile);
  }

  /** Writes a key readable by its owner only, as etcd's 0600. */
  private static void writePrivate(Path file, String text) throws IOException {
    try {
      Files.deleteIfExists(file);
      Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      Files.createFile(file);
    }
    Files.writeString(file, text, StandardCharsets.US_ASCII, StandardOpenOption.TRUNCATE_EXISTING);
  }

  /** PEM text of a certificate. */
  static String pem(Object o) throws IOException {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(out)) {
      writer.writeObject(o);
    }
    return out.toString();
  }
}
