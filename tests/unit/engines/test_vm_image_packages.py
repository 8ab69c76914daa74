"""The VM image's kernel can come from another Debian release (``SUBFLOW_VM_KERNEL_RELEASE``): run 13 of
docs/validation/mininet_wifi.md took bookworm-backports' 6.12 this way. The choice is part of the image's key, so
a cached image of the other kernel is never reused."""

from __future__ import annotations

import pytest

from subflow_engines.vm import image


def test_the_kernel_release_changes_the_package_and_the_key(monkeypatch):
    monkeypatch.delenv("SUBFLOW_VM_KERNEL_RELEASE", raising=False)
    default = image.image_key("mininet-wifi")
    assert "linux-image-amd64" in image.packages("mininet-wifi")
    monkeypatch.setenv("SUBFLOW_VM_KERNEL_RELEASE", "bookworm-backports")
    pkgs = image.packages("mininet-wifi")
    assert "linux-image-amd64/bookworm-backports" in pkgs and "linux-image-amd64" not in pkgs
    assert len(pkgs) == len(image.FLAVOURS["mininet-wifi"]) and "hostapd" in pkgs
    assert image.image_key("mininet-wifi") != default


@pytest.mark.parametrize("release", ["bookworm backports", "../x", "Bookworm", "a;b"])
def test_a_release_that_is_not_a_debian_name_is_refused(monkeypatch, release):
    monkeypatch.setenv("SUBFLOW_VM_KERNEL_RELEASE", release)
    with pytest.raises(ValueError, match="SUBFLOW_VM_KERNEL_RELEASE"):
        image.packages("wifi")
