# Lines of a measurement's meta.txt that every comparison script writes alike;
# source it (`. "$(dirname "$0")/../meta.sh"`).

# The current time, UTC.
meta_date() {
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
}

# meta_binary LABEL BIN: the binary's path, version and checksum.
meta_binary() {
  echo "$1: $2, $("$2" --version), sha256 $(sha256sum "$2" | cut -c1-16)"
}

# The processor, its cores and the kernel.
meta_machine() {
  echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores, kernel $(uname -r)"
}

# The load average when the measurement starts.
meta_load() {
  echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# meta_header COMMAND BIN: the command, then the lines above for binary BIN.
meta_header() {
  echo "command: $1"
  meta_date
  meta_binary binary "$2"
  meta_machine
  meta_load
}
