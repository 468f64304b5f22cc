import { createHash } from "node:crypto"

/** The one stylesheet of the pages, inlined in each (no asset route, no build step). */
export const STYLESHEET = `
:root{color-scheme:light dark;--fg:#1b1d22;--muted:#5b6270;--bg:#f5f6f8;--card:#fff;--line:#d7dbe2;--accent:#2d5bd7;--on-accent:#fff;--danger:#b42318;--ok:#137333}
@media (prefers-color-scheme:dark){:root{--fg:#e8eaee;--muted:#a3aab8;--bg:#14161a;--card:#1d2026;--line:#343844;--accent:#7d9cf5;--on-accent:#0b0d12;--danger:#f28b82;--ok:#81c995}}
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:26rem;margin:8vh auto;padding:0 1rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:12px;padding:1.75rem}
.brand{font-weight:700;letter-spacing:.02em;color:var(--muted);margin:0 0 1rem}
h1{font-size:1.4rem;margin:0 0 1rem}
h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
h3{font-size:1rem;margin:1rem 0 .25rem}
ul.items{margin:.25rem 0;padding-left:1.1rem}
p{margin:.5rem 0}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input{width:100%;padding:.6rem .7rem;font:inherit;color:inherit;background:transparent;border:1px solid var(--line);border-radius:8px}
input:focus{outline:2px solid var(--accent);outline-offset:1px}
input[aria-invalid=true]{border-color:var(--danger)}
.hint{color:var(--muted);font-size:.875rem;margin:.25rem 0 0}
.field-error{color:var(--danger);font-size:.875rem;margin:.25rem 0 0}
.alert{border:1px solid var(--danger);color:var(--danger);border-radius:8px;padding:.6rem .8rem;margin:0 0 1rem}
.notice{border:1px solid var(--ok);color:var(--ok);border-radius:8px;padding:.6rem .8rem;margin:0 0 1rem}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}
button{flex:1;padding:.65rem 1rem;font:inherit;font-weight:600;border-radius:8px;border:1px solid var(--accent);background:var(--accent);color:var(--on-accent);cursor:pointer}
a.button{flex:1;display:flex;align-items:center;justify-content:center;text-align:center;text-decoration:none;padding:.65rem 1rem;font-weight:600;border-radius:8px;border:1px solid var(--accent);background:var(--accent);color:var(--on-accent)}
a.button.secondary,button.secondary{background:transparent;color:var(--fg);border-color:var(--line)}
.code{font:600 1.6rem/1.2 ui-monospace,SFMono-Regular,Menlo,monospace;letter-spacing:.12em;text-align:center;padding:.75rem;border:1px dashed var(--line);border-radius:8px;margin:1rem 0}
dl{display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem;margin:1rem 0}
dt{color:var(--muted)}
dd{margin:0;word-break:break-all}
.links{margin-top:1.25rem;font-size:.9rem;color:var(--muted)}
a{color:var(--accent)}
`.trim()

/** The stylesheet's CSP source (`'sha256-…'`), so that `style-src` allows it and nothing else. */
export const STYLESHEET_SOURCE = `'sha256-${createHash("sha256").update(STYLESHEET).digest("base64")}'`
