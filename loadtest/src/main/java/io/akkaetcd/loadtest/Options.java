package io.akkaetcd.loadtest;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Flags in the style of etcd's own {@code benchmark} tool: {@code --name=value} or {@code --name value},
 * everything else positional. Every flag is looked up with its default, so an unknown flag is reported
 * rather than silently ignored ({@link #checkAllUsed}).
 */
final class Options {
  private final Map<String, String> flags = new HashMap<>();
  private final Map<String, Boolean> used = new HashMap<>();
  final List<String> positional = new ArrayList<>();

  Options(String[] args) {
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (!a.startsWith("--")) {
        positional.add(a);
        continue;
      }
      String name = a.substring(2);
      int eq = name.indexOf('=');
      if (eq >= 0) {
        flags.put(name.substring(0, eq), name.substring(eq + 1));
      } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
        flags.put(name, args[++i]);
      } else {
        flags.put(name, "true");
      }
    }
  }

  String string(String name, String dflt) {
    used.put(name, true);
    return flags.getOrDefault(name, dflt);
  }

  int integer(String name, int dflt) {
    return Integer.parseInt(string(name, Integer.toString(dflt)));
  }

  long longValue(String name, long dflt) {
    return Long.parseLong(string(name, Long.toString(dflt)));
  }

  double decimal(String name, double dflt) {
    return Double.parseDouble(string(name, Double.toString(dflt)));
  }

  boolean bool(String name, boolean dflt) {
    return Boolean.parseBoolean(string(name, Boolean.toString(dflt)));
  }

  boolean has(String name) {
    used.put(name, true);
    return flags.containsKey(name);
  }

  /** Fails on a flag that no code path asked for: a typo must not run the wrong benchmark. */
  void checkAllUsed() {
    for (String name : flags.keySet()) {
      if (!used.containsKey(name)) throw new IllegalArgumentException("unknown flag --" + name);
    }
  }
}
