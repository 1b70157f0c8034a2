package io.akkaetcd.etcdmain;

import java.io.IOException;
import java.net.URL;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * The launcher's context class loader: its parent's classes and resources, except that
 * {@code META-INF/MANIFEST.MF} lists only the Akka modules' jars. Akka's ManifestInfo (read as an
 * ActorSystem starts, and by Akka HTTP) opens every manifest it is given, and opening a signed
 * jar's (Bouncy Castle's) verifies the jar's signatures: a few hundred milliseconds of a start
 * (issue #32). ManifestInfo compares only Akka modules' versions, so what it checks is unchanged.
 * It defines no class: every class still comes from the parent.
 */
final class AkkaManifestsOnly extends ClassLoader {
  static final String MANIFEST = "META-INF/MANIFEST.MF";

  static {
    registerAsParallelCapable();
  }

  AkkaManifestsOnly(ClassLoader parent) {
    super(parent);
  }

  @Override
  public Enumeration<URL> getResources(String name) throws IOException {
    Enumeration<URL> all = super.getResources(name);
    if (!name.equals(MANIFEST)) {
      return all;
    }
    List<URL> kept = new ArrayList<>();
    while (all.hasMoreElements()) {
      URL url = all.nextElement();
      if (isAkkaModule(url)) {
        kept.add(url);
      }
    }
    return Collections.enumeration(kept);
  }

  /** True for the manifest of a jar named akka-*.jar ({@code jar:file:/…/akka-actor_2.13-2.8.6.jar!/META-INF/…}). */
  static boolean isAkkaModule(URL manifest) {
    String s = manifest.toString();
    int end = s.lastIndexOf("!/");
    if (!s.startsWith("jar:") || end < 0) {
      return false;
    }
    String jar = s.substring(s.lastIndexOf('/', end - 1) + 1, end);
    return jar.startsWith("akka-") && jar.endsWith(".jar");
  }
}
