package io.akkaetcd.etcdmain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URL;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

class AkkaManifestsOnlyTest {
  @Test
  void keepsOnlyTheAkkaJarsManifests() throws Exception {
    assertTrue(AkkaManifestsOnly.isAkkaModule(
        new URL("jar:file:/usr/lib/akka-etcd/lib/akka-actor_2.13-2.8.6.jar!/META-INF/MANIFEST.MF")));
    assertFalse(AkkaManifestsOnly.isAkkaModule(
        new URL("jar:file:/usr/lib/akka-etcd/lib/bcprov-jdk18on-1.87.jar!/META-INF/MANIFEST.MF")));
    assertFalse(AkkaManifestsOnly.isAkkaModule(
        new URL("jar:file:/opt/akka-etcd/app.jar!/META-INF/MANIFEST.MF")), "a directory named akka- is not a module");
    assertFalse(AkkaManifestsOnly.isAkkaModule(new URL("file:/work/target/classes/META-INF/MANIFEST.MF")));
  }

  @Test
  void listsAkkaManifestsAndNoSignedJar() throws Exception {
    ClassLoader parent = getClass().getClassLoader();
    AkkaManifestsOnly loader = new AkkaManifestsOnly(parent);
    List<URL> all = Collections.list(parent.getResources(AkkaManifestsOnly.MANIFEST));
    List<URL> kept = Collections.list(loader.getResources(AkkaManifestsOnly.MANIFEST));
    assertTrue(all.stream().anyMatch(u -> u.toString().contains("bcprov")), "the test class path has Bouncy Castle");
    assertTrue(kept.stream().anyMatch(u -> u.toString().contains("/akka-actor_")), kept.toString());
    assertTrue(kept.stream().allMatch(AkkaManifestsOnly::isAkkaModule), kept.toString());
    assertEquals(all.stream().filter(AkkaManifestsOnly::isAkkaModule).count(), kept.size());
    // Everything else is the parent's: same classes, same other resources.
    assertEquals(akka.actor.ActorSystem.class, loader.loadClass("akka.actor.ActorSystem"));
    assertEquals(Collections.list(parent.getResources("reference.conf")),
        Collections.list(loader.getResources("reference.conf")));
  }
}
