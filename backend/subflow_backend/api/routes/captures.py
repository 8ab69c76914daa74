"""``/api/scenarios/{id}/comparisons/{cid}/captures``: the packet captures of a comparison (scenario
``capture``, linux engine), listed per strategy and link and downloaded as libpcap files.

Readable like the comparison itself: by the members of the scenario's project (404 for anyone else).
"""

from __future__ import annotations

import re

from fastapi import APIRouter, HTTPException, status
from fastapi.responses import Response
from sqlalchemy import select

from subflow_backend import models
from subflow_backend.api.deps import ScenarioDep, SessionDep
from subflow_backend.crud import get_comparison
from subflow_backend.schemas import CapturePublic, CapturesPublic

#: IANA media type of a libpcap file
PCAP_MEDIA_TYPE = "application/vnd.tcpdump.pcap"

router = APIRouter(prefix="/scenarios/{scenario_id}/comparisons/{comparison_id}/captures", tags=["comparisons"])

_METADATA = [c for c in models.PacketCapture.__table__.columns if c.name != "data"]


def _comparison_or_404(session, scenario: models.Scenario, comparison_id: str) -> models.Comparison:
    row = get_comparison(session, scenario.id, comparison_id)
    if row is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"comparison {comparison_id!r} not found")
    return row


@router.get("", response_model=CapturesPublic, responses={404: {"description": "No such comparison."}})
def list_captures(session: SessionDep, scenario: ScenarioDep, comparison_id: str) -> CapturesPublic:
    """The comparison's packet captures, by strategy then link (without the files): ``{data: [CapturePublic],
    count}``; empty for a comparison whose scenario lists no ``capture`` or that has not succeeded."""
    _comparison_or_404(session, scenario, comparison_id)
    rows = session.execute(
        select(*_METADATA).where(models.PacketCapture.comparison_id == comparison_id)
        .order_by(models.PacketCapture.strategy, models.PacketCapture.link)
    ).all()
    return CapturesPublic(data=[CapturePublic.model_validate(r._mapping) for r in rows], count=len(rows))


@router.get(
    "/{capture_id}",
    response_class=Response,
    responses={
        200: {"content": {PCAP_MEDIA_TYPE: {"schema": {"type": "string", "format": "binary"}}},
              "description": "The libpcap file (nanosecond timestamps), as an attachment."},
        404: {"description": "No such comparison or capture."},
    },
)
def download_capture(session: SessionDep, scenario: ScenarioDep, comparison_id: str, capture_id: str) -> Response:
    """Download one capture as ``<scenario>-<strategy>-<link>.pcap`` (open it with Wireshark, tcpdump -r,
    dpkt or scapy)."""
    _comparison_or_404(session, scenario, comparison_id)
    row = session.get(models.PacketCapture, capture_id)
    if row is None or row.comparison_id != comparison_id:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"capture {capture_id!r} not found")
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{scenario.name}-{row.strategy}-{row.link}").strip("-") or "capture"
    return Response(content=row.data, media_type=PCAP_MEDIA_TYPE,
                    headers={"Content-Disposition": f'attachment; filename="{name}.pcap"'})

