// gridsim explore: what follows the view's time range (gridsim/analysis/explore.py).
// Arguments: boxes, raster, range, whole, count, limit, lines, bins.

// Shows the rectangles when the view is expected to hold at most `limit` of them (the jobs
// spread evenly over time), the image otherwise.
const shown = count * (range.end - range.start) / whole <= limit
if (boxes.visible !== shown) { boxes.visible = shown; raster.visible = !shown }

// The panels show the exact time-weighted mean of their step function over each of `bins`
// equal bins of the view (Steps.binned_means, in the page): as fine as the screen at any zoom.
const a = range.start, b = range.end, width = (b - a) / bins
for (const [steps, line] of lines) {
  const t = steps.data.t, v = steps.data.v, area = steps.data.area
  const under = (x) => {
    if (x <= t[0]) return 0
    let low = 0, high = t.length - 1
    while (low < high) {
      const mid = (low + high + 1) >> 1
      if (t[mid] <= x) low = mid; else high = mid - 1
    }
    return area[low] + v[low] * (x - t[low])
  }
  const x = new Float64Array(bins), y = new Float64Array(bins)
  let before = under(a)
  for (let i = 0; i < bins; i++) {
    const after = under(a + (i + 1) * width)
    x[i] = a + i * width
    y[i] = (after - before) / width
    before = after
  }
  line.data = {x, y}
}
