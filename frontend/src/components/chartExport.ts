/**
 * Export a chart: its SVG (with the computed styles inlined, so it looks the
 * same outside the page), a PNG rendered from that SVG, or CSV text.
 */

const STYLE_PROPS = [
  "fill",
  "fill-opacity",
  "stroke",
  "stroke-width",
  "stroke-dasharray",
  "stroke-opacity",
  "opacity",
  "font-family",
  "font-size",
  "font-weight",
  "text-anchor",
  "dominant-baseline",
];

/** A standalone SVG document of `svg` with the styles the page applied. */
export function serializeSvg(svg: SVGSVGElement): string {
  const clone = svg.cloneNode(true) as SVGSVGElement;
  const src = [svg, ...Array.from(svg.querySelectorAll("*"))];
  const dst = [clone, ...Array.from(clone.querySelectorAll("*"))];
  src.forEach((el, i) => {
    const cs = getComputedStyle(el);
    const target = dst[i] as SVGElement;
    const style = STYLE_PROPS.map((p) => `${p}:${cs.getPropertyValue(p)}`).join(";");
    target.setAttribute("style", style);
  });
  const box = svg.viewBox.baseVal;
  clone.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  clone.setAttribute("width", String(box?.width || svg.clientWidth));
  clone.setAttribute("height", String(box?.height || svg.clientHeight));
  const bg = document.createElementNS("http://www.w3.org/2000/svg", "rect");
  bg.setAttribute("width", "100%");
  bg.setAttribute("height", "100%");
  bg.setAttribute("fill", "#ffffff");
  clone.insertBefore(bg, clone.firstChild);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(clone)}`;
}

export function download(filename: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function downloadSvg(svg: SVGSVGElement, filename: string): void {
  download(filename, new Blob([serializeSvg(svg)], { type: "image/svg+xml" }));
}

/** Render the SVG at `scale` × its size to a PNG blob. */
export function svgToPng(svg: SVGSVGElement, scale = 2): Promise<Blob> {
  const text = serializeSvg(svg);
  const box = svg.viewBox.baseVal;
  const w = box?.width || svg.clientWidth;
  const h = box?.height || svg.clientHeight;
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => {
      const canvas = document.createElement("canvas");
      canvas.width = Math.round(w * scale);
      canvas.height = Math.round(h * scale);
      const ctx = canvas.getContext("2d");
      if (!ctx) return reject(new Error("no 2d canvas"));
      ctx.scale(scale, scale);
      ctx.drawImage(img, 0, 0, w, h);
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("PNG encoding failed"))), "image/png");
    };
    img.onerror = () => reject(new Error("the SVG could not be rendered"));
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(text)}`;
  });
}

export async function downloadPng(svg: SVGSVGElement, filename: string): Promise<void> {
  download(filename, await svgToPng(svg));
}

export function downloadCsv(text: string, filename: string): void {
  download(filename, new Blob([text], { type: "text/csv;charset=utf-8" }));
}
