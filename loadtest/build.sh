# Sourced by loadtest/benchmark and loadtest/compare: builds what they run when it is missing or
# older than its sources. The load tool is its own Maven project (loadtest/pom.xml); the server
# (target/akka-etcd.jar, run by bin/akka-etcd) is built only when a caller asks for it.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tool_jar="$root/loadtest/target/akka-etcd-loadtest.jar"
tool_cp="$tool_jar:$root/loadtest/target/lib/*"

# stale JAR SOURCE...: the jar or its lib/ is missing, or a source file is newer than the jar.
stale() {
  local jar="$1"; shift
  [ ! -f "$jar" ] || [ ! -d "$(dirname "$jar")/lib" ] && return 0
  [ -n "$(find "$@" -newer "$jar" -type f -print -quit 2>/dev/null)" ]
}

build_tool() {
  if stale "$tool_jar" "$root/loadtest/src" "$root/loadtest/pom.xml" "$root/protobuf"; then
    echo "loadtest: building $tool_jar ..." >&2
    (cd "$root/loadtest" && mvn -B -q -DskipTests package >&2)
  fi
}

build_server() {
  if stale "$root/target/akka-etcd.jar" "$root/src/main" "$root/protobuf" "$root/pom.xml" "$root/application.conf"; then
    echo "loadtest: building $root/target/akka-etcd.jar ..." >&2
    (cd "$root" && mvn -B -q -DskipTests package >&2)
  fi
}
