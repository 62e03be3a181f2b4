# Sourced by the build and test scripts: `phase NAME COMMAND...` runs COMMAND and, when
# CTWIN_PHASES names a file (.ci/run sets it), appends "NAME SECONDS" to it, so CI can print
# where its time went and fail when the total outgrows its budget (docs/development.md).
phase() {
  local name="$1"
  shift
  local start=$SECONDS
  "$@"
  if [[ -n "${CTWIN_PHASES:-}" ]]; then
    echo "$name $((SECONDS - start))" >>"$CTWIN_PHASES"
  fi
}

# Configures build folder $1 with the remaining arguments: Ninja when it is installed (unless
# the folder was configured before with another generator), ccache as the compiler launcher
# when it is installed. ccache's depend mode reads the dependency files Ninja asks the compiler
# for instead of running the preprocessor a second time, so a cold cache costs next to nothing.
configure() {
  local dir="$1"
  shift
  local extra=()
  if [[ ! -f "$dir/CMakeCache.txt" ]] && command -v ninja >/dev/null; then extra+=(-G Ninja); fi
  if command -v ccache >/dev/null; then extra+=("-DCMAKE_CXX_COMPILER_LAUNCHER=env;CCACHE_DEPEND=1;ccache"); fi
  cmake -S . -B "$dir" "${extra[@]}" "$@" >/dev/null
}
