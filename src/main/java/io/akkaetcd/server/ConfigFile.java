package io.akkaetcd.server;

import io.akkaetcd.server.Flags.FlagException;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * etcd's --config-file: a YAML map whose keys are the flags' names, as etcd 3.4's embed.Config
 * reads it. Lists (log-outputs, cipher-suites) become comma-separated values; durations are Go's
 * JSON form, whole nanoseconds; TLS settings sit under {@code client-transport-security} and
 * {@code peer-transport-security}. A key etcd does not read is warned about (etcd skips it silently).
 */
final class ConfigFile {
  /** The keys of a *-transport-security block and the flags they set, client side. */
  private static final Map<String, String> CLIENT_SECURITY = Map.of("cert-file", "cert-file", "key-file", "key-file",
      "client-cert-auth", "client-cert-auth", "trusted-ca-file", "trusted-ca-file", "auto-tls", "auto-tls");
  private static final Map<String, String> PEER_SECURITY = Map.of("cert-file", "peer-cert-file",
      "key-file", "peer-key-file", "client-cert-auth", "peer-client-cert-auth", "trusted-ca-file",
      "peer-trusted-ca-file", "auto-tls", "peer-auto-tls");

  /** What a file sets: flag name to value, and warnings about keys it skipped. */
  record Settings(Map<String, String> values, List<String> warnings) {}

  private ConfigFile() {}

  static Settings read(Path file, Map<String, Flag> flags) {
    Object doc;
    try (Reader r = Files.newBufferedReader(file)) {
      doc = new Yaml(new SafeConstructor(new LoaderOptions())).load(r);
    } catch (IOException e) {
      throw new FlagException("cannot read --config-file " + file + ": " + e);
    } catch (YAMLException e) {
      throw new FlagException("--config-file " + file + " is not valid YAML: " + e.getMessage().replace('\n', ' '));
    }
    Map<String, String> values = new LinkedHashMap<>();
    List<String> warnings = new ArrayList<>();
    if (doc == null) {
      return new Settings(values, warnings);
    }
    if (!(doc instanceof Map<?, ?> top)) {
      throw new FlagException("--config-file " + file + " is not a YAML map of settings");
    }
    top.forEach((k, v) -> {
      String key = String.valueOf(k);
      Map<String, String> security = key.equals("client-transport-security") ? CLIENT_SECURITY
          : key.equals("peer-transport-security") ? PEER_SECURITY : null;
      if (security != null && v instanceof Map<?, ?> block) {
        block.forEach((bk, bv) -> {
          String flag = security.get(String.valueOf(bk));
          if (flag == null) {
            warnings.add("--config-file " + file + ": " + key + "." + bk + " is not an etcd setting; ignored");
          } else {
            set(file, flags.get(flag), key + "." + bk, bv, values);
          }
        });
        return;
      }
      Flag flag = flags.get(key);
      if (flag == null || key.equals("config-file") || key.equals("version")
          || flag.support().state() == FlagSupport.State.LEGACY) {
        warnings.add("--config-file " + file + ": " + key + " is not an etcd setting; ignored");
      } else {
        set(file, flag, key, v, values);
      }
    });
    return new Settings(values, warnings);
  }

  private static void set(Path file, Flag flag, String key, Object v, Map<String, String> values) {
    if (v == null) {
      return;
    }
    String value;
    if (v instanceof List<?> list) {
      value = list.stream().map(String::valueOf).collect(Collectors.joining(","));
    } else if (v instanceof Map<?, ?>) {
      throw new FlagException("--config-file " + file + ": " + key + " must be a single value");
    } else if (flag.type() == FlagType.DURATION && v instanceof Number n) {
      value = n.longValue() + "ns"; // Go's time.Duration in JSON: nanoseconds
    } else {
      value = String.valueOf(v);
    }
    String reason = flag.type().check(value);
    if (reason != null) {
      throw new FlagException("--config-file " + file + ": invalid value \"" + value + "\" for " + key + ": " + reason);
    }
    values.put(flag.name(), flag.type().canonical(value));
  }
}
