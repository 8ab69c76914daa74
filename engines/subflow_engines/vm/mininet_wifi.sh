#!/bin/sh
# Build Mininet, Mininet-WiFi, wmediumd and mac80211_hwsim_mgmt from the source trees the host packed
# (src-<name>.tar), install the Python wheels it packed (wheels.tar: what mn_wifi imports that Debian lacks),
# start Open vSwitch, then run every script-<name>.py as the mininet-wifi engine runs a script (python3, its
# stdout parsed on the host) and send back its stdout and stderr. Parameters in params.sh: SCRIPT_TIMEOUT_S, and
# RECORD_S (empty: no record): every RECORD_S seconds, in each Mininet node's network namespace (or only those
# named in RECORD_NODES), the sockets (ss -tani, ss -Mni), the MPTCP endpoints and limits, the links' states, the
# MPTCP and ICMP counters (nstat) and the qdiscs' counters (tc -s qdisc), written by a
# recorder beside the script (not in it: the script's clock is not slowed) and sent back gzipped as <name>.rec.gz.
. /subflow/lib.sh
. /subflow/params.sh
LOG=/tmp/build.log
SRC=/opt/src
RECORD_S=${RECORD_S:-}
RECORD_NODES=${RECORD_NODES:-}
fail() { echo "mininet-wifi job: $*"; tail -n 60 $LOG; emit build.log $LOG; exit 1; }
step() { echo "== $*" >> $LOG; }

# the root file system is the initramfs, a tmpfs of half the memory by default: the image fills most of it
mount -o remount,size=85% / || fail "growing the root file system"
mkdir -p $SRC /tmp/wheels
for t in mininet mininet-wifi wmediumd hwsim_mgmt; do
  mkdir -p $SRC/$t
  tar -xf /subflow/src-$t.tar -C $SRC/$t || fail "unpacking $t"
done
tar -xf /subflow/wheels.tar -C /tmp/wheels || fail "unpacking the wheels"
PIP="pip3 install --quiet --no-index --no-deps --no-build-isolation --break-system-packages"
step mininet
(cd $SRC/mininet && make mnexec PYTHON=python3 && install -m 0755 mnexec /usr/bin/mnexec && $PIP .) >> $LOG 2>&1 || fail "building Mininet"
step wheels
$PIP /tmp/wheels/*.whl >> $LOG 2>&1 || fail "installing the wheels"
step mininet-wifi
(cd $SRC/mininet-wifi && $PIP .) >> $LOG 2>&1 || fail "installing Mininet-WiFi"
step wmediumd
(cd $SRC/wmediumd && make && make install) >> $LOG 2>&1 || fail "building wmediumd"
step hwsim_mgmt
(cd $SRC/hwsim_mgmt && make install) >> $LOG 2>&1 || fail "building mac80211_hwsim_mgmt"
step services
mount -t debugfs debugfs /sys/kernel/debug || fail "mounting debugfs (Mininet-WiFi reads /sys/kernel/debug/ieee80211)"
mkdir -p /var/run/openvswitch /var/log/openvswitch /etc/openvswitch
/usr/share/openvswitch/scripts/ovs-ctl start --system-id=random >> $LOG 2>&1 || fail "starting Open vSwitch"
sysctl -q -w net.mptcp.enabled=1 >> $LOG 2>&1
python3 -c "import mn_wifi.net, mininet.net" >> $LOG 2>&1 || fail "mn_wifi does not import"
echo "built: $(python3 -c 'from mn_wifi.net import VERSION; print(VERSION)') Mininet-WiFi, $(python3 -c 'from mininet.net import VERSION; print(VERSION)') Mininet"
emit build.log $LOG

# record OUT: until killed, every RECORD_S s, per Mininet node with its own network namespace (a shell started as
# "bash ... mininet:<node>"), a block "@@ <epoch s> <node>" then the commands' output under "## <command>" lines
record() {
  root=$(readlink /proc/1/ns/net)
  while :; do
    ts=$(now)
    for pid in $(pgrep -f "^bash .*mininet:"); do
      [ "$(readlink /proc/$pid/ns/net)" = "$root" ] && continue
      node=$(tr '\0' '\n' < /proc/$pid/cmdline | sed -n 's/^mininet://p')
      case " ${RECORD_NODES:-$node} " in *" $node "*) ;; *) continue ;; esac
      echo "@@ $ts $node"
      nsenter -t "$pid" -n sh -c 'echo "## ss -tani"; ss -tani; echo "## ss -Mni"; ss -Mni;
        echo "## ip mptcp endpoint show"; ip mptcp endpoint show; echo "## ip mptcp limits"; ip mptcp limits;
        echo "## ip -o link"; ip -o link; echo "## ip route show"; ip route show;
        echo "## nstat -as"; nstat -as "MPTcp*" "Icmp*" "TcpExtTCPSynRetrans" "TcpExtTCPTimeouts" "TcpRetransSegs";
        echo "## tc -s qdisc show"; tc -s qdisc show;
        for w in $(ip -o link | sed -n "s/^[0-9]*: \([^:@]*wlan[0-9]*\).*/\1/p"); do
          echo "## iw dev $w station dump"; iw dev "$w" station dump; done' 2>&1
    done
    sleep "$RECORD_S"
  done > "$1"
}

for script in /subflow/script-*.py; do
  name=$(basename "$script" .py)
  name=${name#script-}
  start=$(now)
  if [ -n "$RECORD_S" ]; then
    record /tmp/$name.rec &
    recorder=$!
  fi
  timeout "$SCRIPT_TIMEOUT_S" python3 "$script" > /tmp/$name.out 2> /tmp/$name.err
  rc=$?
  if [ -n "$RECORD_S" ]; then
    kill $recorder
    wait $recorder 2> /dev/null
    sleep 1  # the last sample's commands finish writing
    gzip -9 /tmp/$name.rec && emit "$name.rec.gz" /tmp/$name.rec.gz
    rm -f /tmp/$name.rec.gz
  fi
  echo "ran $name: rc $rc in $(echo "$(now) - $start" | awk '{print $1 - $3}') s"
  echo "$rc" > /tmp/$name.rc
  emit "$name.out" /tmp/$name.out
  emit "$name.err" /tmp/$name.err
  emit "$name.rc" /tmp/$name.rc
  mn -c > /dev/null 2>&1
done
