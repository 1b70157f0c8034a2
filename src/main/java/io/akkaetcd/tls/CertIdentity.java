package io.akkaetcd.tls;

import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Optional;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.bouncycastle.asn1.x500.RDN;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x500.style.IETFUtils;

/**
 * Who a verified client certificate names (issue #26 item 3): with {@code --client-cert-auth}
 * and auth enabled, etcd takes the leaf's Common Name as the user when a request carries no
 * token (v3rpc's AuthInfoFromTLS). A session exists only after the chain was verified, so its
 * peer certificates are a verified chain.
 */
public final class CertIdentity {
  private CertIdentity() {}

  /** The CN of the session's client certificate; empty without one or with an empty CN. */
  public static Optional<String> user(SSLSession session) {
    try {
      Certificate[] chain = session.getPeerCertificates();
      if (chain.length > 0 && chain[0] instanceof X509Certificate leaf) {
        return Optional.of(commonName(leaf)).filter(cn -> !cn.isEmpty());
      }
    } catch (SSLPeerUnverifiedException e) {
      // no client certificate: the request's token decides
    }
    return Optional.empty();
  }

  /** The subject's CN as Go's pkix.Name.CommonName: the last CN attribute, or "" when none. */
  public static String commonName(X509Certificate cert) {
    X500Name subject = X500Name.getInstance(cert.getSubjectX500Principal().getEncoded());
    String cn = "";
    for (RDN rdn : subject.getRDNs(BCStyle.CN)) {
      cn = IETFUtils.valueToString(rdn.getFirst().getValue());
    }
    return cn;
  }
}
