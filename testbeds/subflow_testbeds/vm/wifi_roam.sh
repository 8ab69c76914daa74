#!/bin/sh
# Real 802.11 in the testbed VM: two hostapd access points (open network "subflow-roam", channels 1 and 6,
# both bridged to br0 = 10.0.0.1, the iperf3 server) and one station driven by wpa_supplicant in its own
# network namespace (10.0.0.2), all on mac80211_hwsim radios. The station associates with ap0 (the only access
# point up then), scans once ap1 is up, sends bulk TCP to the server for DURATION_S seconds, and at ROAM_AT_S
# into the flow roams to ap1 (wpa_cli roam: authentication and reassociation with a BSS it has scanned).
# Sends back: times (epoch seconds), the station's and access points' logs (wpa_supplicant/hostapd -t
# timestamps), iperf3's JSON and `iw dev wlan2 link` after the roam.
. /subflow/lib.sh
. /subflow/params.sh
D=/tmp/roam
mkdir -p $D /run/hostapd /run/wpa_supplicant
fail() { echo "roam job: $*"; for f in $D/*.log; do [ -f "$f" ] && emit "$(basename "$f")" "$f"; done; exit 1; }
wait_for() {  # wait_for SECONDS COMMAND...: poll every 0.1 s until COMMAND succeeds
  n=$(($1 * 10)); shift
  while [ $n -gt 0 ]; do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; n=$((n - 1)); done
  return 1
}

modprobe mac80211_hwsim radios=3 || fail "modprobe mac80211_hwsim"
wait_for 10 test -e /sys/class/net/wlan2 || fail "no wlan2 after loading mac80211_hwsim"
ip link add br0 type bridge
ip addr add 10.0.0.1/24 dev br0
ip link set br0 up
for i in 0 1; do
  cat > $D/ap$i.conf <<EOF
interface=wlan$i
bridge=br0
driver=nl80211
ctrl_interface=/run/hostapd
ssid=subflow-roam
hw_mode=g
channel=$((1 + 5 * i))
beacon_int=100
EOF
done
cat > $D/sta.conf <<EOF
ctrl_interface=/run/wpa_supplicant
network={
  ssid="subflow-roam"
  key_mgmt=NONE
  scan_ssid=1
}
EOF
ap_up() { hostapd_cli -p /run/hostapd -i "wlan$1" status | grep -q '^state=ENABLED'; }
sta_state() { ip netns exec sta wpa_cli -p /run/wpa_supplicant -i wlan2 status; }
completed() { sta_state | grep -q '^wpa_state=COMPLETED'; }

ip netns add sta
ip netns exec sta ip link set lo up
iw phy phy2 set netns name sta || fail "moving phy2 into the station's namespace"
BSSID0=$(cat /sys/class/net/wlan0/address)
BSSID1=$(cat /sys/class/net/wlan1/address)

hostapd -B -t -f $D/ap0.log $D/ap0.conf || fail "hostapd ap0"
wait_for 20 ap_up 0 || fail "ap0 not enabled"
echo "t_wpa_start=$(now)" > $D/times
ip netns exec sta wpa_supplicant -B -t -f $D/sta.log -i wlan2 -c $D/sta.conf || fail "wpa_supplicant"
wait_for 60 completed || fail "the station did not associate with ap0"
echo "t_associated=$(now)" >> $D/times
ip netns exec sta ip addr add 10.0.0.2/24 dev wlan2
hostapd -B -t -f $D/ap1.log $D/ap1.conf || fail "hostapd ap1"
wait_for 20 ap_up 1 || fail "ap1 not enabled"
seen_ap1() {
  ip netns exec sta wpa_cli -p /run/wpa_supplicant -i wlan2 scan >/dev/null
  sleep 1
  ip netns exec sta wpa_cli -p /run/wpa_supplicant -i wlan2 scan_results | grep -qi "$BSSID1"
}
wait_for 60 seen_ap1 || fail "the station's scans never heard ap1"
wait_for 20 ip netns exec sta ping -c 1 -W 1 10.0.0.1 || fail "no IP path from the station to the server"
iperf3 -s -1 -D -B 10.0.0.1 || fail "iperf3 server"
sleep 0.5
echo "t_flow_start=$(now)" >> $D/times
ip netns exec sta iperf3 -c 10.0.0.1 -t "$DURATION_S" -i 0.25 -J > $D/iperf3.json 2> $D/iperf3.err &
flow=$!
sleep "$ROAM_AT_S"
echo "t_roam=$(now)" >> $D/times
ip netns exec sta wpa_cli -p /run/wpa_supplicant -i wlan2 roam "$BSSID1" > $D/roam.out 2>&1
wait $flow
echo "iperf3_rc=$?" >> $D/times
ip netns exec sta iw dev wlan2 link > $D/link.txt 2>&1
echo "bssid0=$BSSID0" >> $D/times
echo "bssid1=$BSSID1" >> $D/times
for f in times link.txt roam.out iperf3.json iperf3.err sta.log ap0.log ap1.log; do emit "$f" "$D/$f"; done
