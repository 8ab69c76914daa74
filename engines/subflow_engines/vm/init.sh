#!/bin/sh
# PID 1 of the Subflow testbed VM: mount the kernel's file systems, run /subflow/job.sh (the job's
# initramfs, appended at boot), print its exit code and power off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm /run /tmp
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /run
mount -t tmpfs tmpfs /tmp
echo 1 > /proc/sys/kernel/sysrq
ip link set lo up
echo "SUBFLOW-VM-UP $(cut -d' ' -f1 /proc/uptime)"
if [ -x /subflow/job.sh ]; then
  /subflow/job.sh
  rc=$?
else
  echo "no /subflow/job.sh in the initramfs"
  rc=127
fi
echo "SUBFLOW-JOB-RC=$rc"
sync
echo o > /proc/sysrq-trigger
sleep 30
