/** An alert listing problems (e.g. the field paths and messages of a 422). */
export function ErrorList({ title, items }: { title: string; items: string[] }) {
  if (!items.length) return null;
  return (
    <div className="alert alert-error" role="alert">
      <strong>{title}</strong>
      <ul>
        {items.map((m, i) => (
          <li key={i}>
            <code>{m}</code>
          </li>
        ))}
      </ul>
    </div>
  );
}
