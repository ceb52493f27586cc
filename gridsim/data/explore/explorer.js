// gridsim explore: the interactions of the schedule explorer (gridsim/analysis/explore.py).
// Called with one of {ready}, {hover}, {tap}, {search}; the state lives in window.gridsimExplorer.
// Arguments: quads, jobs, outlines, tooltip, gantt, status, search, boxes, raster (Bokeh
// models), dates, unit, states, value_label (what jobs.data.value holds, if anything).
const data = cb_data || {}
let ex = window.gridsimExplorer
if (ex === undefined) {
  const rows = quads.data.row
  const byRow = new Map()
  for (let i = 0; i < rows.length; i++) {
    const list = byRow.get(rows[i])
    if (list === undefined) byRow.set(rows[i], [i]); else list.push(i)
  }
  const byId = new Map()
  const ids = jobs.data.job_id
  for (let i = 0; i < ids.length; i++) byId.set(Number(ids[i]), i)
  ex = window.gridsimExplorer = {
    jobs: ids.length, quads: rows.length, byRow, byId, mouse: [0, 0], selected: null,
    behind: [], rendered: null, hovered: null, gantt, search,
  }
  document.addEventListener("mousemove", (e) => { ex.mouse = [e.clientX, e.clientY] })
  // Page coordinates of a job's first rectangle (tests hover there).
  ex.point = (row) => {
    const view = Bokeh.index.find_one(gantt)
    const i = byRow.get(row).reduce((a, b) => (quads.data.top[b] - quads.data.bottom[b] >
      quads.data.top[a] - quads.data.bottom[a] ? b : a))
    const d = quads.data
    const x = view.frame.x_scale.compute((d.left[i] + d.right[i]) / 2)
    const y = view.frame.y_scale.compute((d.bottom[i] + d.top[i]) / 2)
    const box = view.canvas_view.el.getBoundingClientRect()
    return [box.left + x, box.top + y]
  }
  ex.range = () => [gantt.x_range.start, gantt.x_range.end]
  ex.finished = () => Bokeh.index.find_one(gantt).has_finished()
  ex.rowOf = (id) => byId.get(Number(id))
  ex.times = (row) => [jobs.data.submit[row], jobs.data.finish[row]]
  ex.quadsShown = () => boxes.visible
  ex.rasterShown = () => raster.visible
  ex.select = (row) => select(row)
}

function time(value) {
  if (!dates) return `${value.toPrecision(6)} ${unit}`
  return new Date(value).toISOString().replace("T", " ").replace(/\.\d+Z$/, " UTC")
}

function duration(seconds) {
  if (unit !== "s") return `${seconds.toPrecision(4)} ${unit}`
  const h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60)
  const s = Math.round(seconds % 60)
  return h ? `${h} h ${m} min` : (m ? `${m} min ${s} s` : `${s} s`)
}

function describe(row) {
  const j = jobs.data
  const user = j.user_id[row] >= 0 ? `user ${j.user_id[row]}` : "no user"
  const cost = Number.isFinite(j.cost[row]) ? j.cost[row].toPrecision(5) : "not priced"
  return `<b>job ${j.job_id[row]}</b> (${user}, ${states[j.state[row]]})<br>` +
    `submit ${time(j.submit[row])}<br>start ${time(j.start[row])}<br>` +
    `end ${time(j.finish[row])}<br>wait ${duration(j.wait[row])}<br>` +
    `${j.processors[row]} processors: nodes ${j.nodes[row]}<br>` +
    (j.resources ? `held ${j.resources[row]}<br>` : "") + `cost ${cost}` +
    (j.value ? `<br>${value_label} ${j.value[row].toPrecision(4)}` : "")
}

// The jobs that held one of row's nodes while it waited, [submit, start).
function waitedBehind(row) {
  const q = quads.data, j = jobs.data
  const mine = ex.byRow.get(row)
  const from = j.submit[row], until = j.start[row]
  const found = new Set()
  if (until > from) {
    for (let i = 0; i < q.row.length; i++) {
      const other = q.row[i]
      if (other === row || q.right[i] <= from || q.left[i] >= until) continue
      for (const k of mine) {
        if (q.bottom[i] < q.top[k] && q.top[i] > q.bottom[k]) { found.add(other); break }
      }
    }
  }
  return [...found]
}

function select(row) {
  const q = quads.data
  const behind = waitedBehind(row)
  const outline = {left: [], right: [], bottom: [], top: [], colour: []}
  const chosen = []
  for (const [rows, colour] of [[behind, "#000000"], [[row], "#D00000"]]) {
    for (const r of rows) {
      for (const i of ex.byRow.get(r)) {
        chosen.push(i)
        outline.left.push(q.left[i]); outline.right.push(q.right[i])
        outline.bottom.push(q.bottom[i]); outline.top.push(q.top[i])
        outline.colour.push(colour)
      }
    }
  }
  outlines.data = outline
  quads.selected.indices = chosen
  ex.selected = Number(jobs.data.job_id[row])
  ex.behind = behind.map((r) => Number(jobs.data.job_id[r]))
  const ids = ex.behind.slice(0, 12).join(", ") + (ex.behind.length > 12 ? ", ..." : "")
  status.text = `${describe(row).replace(/<br>/g, "; ")}<br>waited behind ` +
    (behind.length ? `${behind.length} jobs (outlined in black): ${ids}` : "no job")
}

if (data.ready) {
  ex.rendered = performance.now()
} else if (data.hover !== undefined) {
  const indices = data.hover.index.indices
  if (indices.length === 0) {
    tooltip.visible = false
    ex.hovered = null
  } else {
    const row = quads.data.row[indices[indices.length - 1]]
    ex.hovered = Number(jobs.data.job_id[row])
    tooltip.text = describe(row)
    tooltip.styles = {
      position: "fixed", "z-index": "10", left: `${ex.mouse[0] + 14}px`,
      top: `${ex.mouse[1] + 14}px`, background: "rgba(255,255,255,0.95)",
      border: "1px solid #888", "border-radius": "4px", padding: "4px 8px",
      "font-size": "12px", "pointer-events": "none", "box-shadow": "0 1px 4px #0003",
    }
    tooltip.visible = true
  }
} else if (data.tap !== undefined) {
  const indices = quads.selected.indices
  if (indices.length > 0) select(quads.data.row[indices[0]])
} else if (data.search !== undefined) {
  const row = ex.byId.get(Number(String(data.search).trim()))
  if (row === undefined) {
    status.text = `no job ${data.search} in this run`
  } else {
    select(row)
    const j = jobs.data
    const span = Math.max(j.finish[row] - j.submit[row], 1)
    gantt.x_range.setv({start: j.submit[row] - span * 0.5, end: j.finish[row] + span * 0.5})
  }
}
