// Turns the report data (window.C3SIM_DATA, written by c3sim report) into Chart.js charts.
// Animations are off so every chart is complete when the page's load event ends; the page then
// checks each canvas has ink and records the count in <body data-charts-drawn>, which the
// headless-browser test reads.
(function () {
  'use strict';
  const D = window.C3SIM_DATA;
  const palette = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7',
    '#9c755f', '#bab0ac', '#1f77b4', '#2ca02c'];
  const color = (i) => palette[i % palette.length];
  Chart.defaults.animation = false;
  Chart.defaults.responsive = false;
  Chart.defaults.font.size = 12;

  function canvas(id) { return document.getElementById(id); }
  function title(text) { return { display: true, text: text, font: { size: 14 } }; }
  function axis(text, extra) { return Object.assign({ title: { display: true, text: text } }, extra || {}); }

  const draw = {
    'fig5-gemm': () => new Chart(canvas('fig5-gemm'), {
      type: 'line',
      data: { datasets: D.figure5.gemm.map((s, i) => ({ label: s.label, data: s.points.map((p) => ({ x: p[0], y: p[1] })),
        borderColor: color(i), backgroundColor: color(i) })) },
      options: { plugins: { title: title('GEMM slowdown vs CUs taken away (Fig. 5a)') },
        scales: { x: axis('CUs removed', { type: 'linear' }), y: axis('time / time with all CUs') } },
    }),
    'fig5-coll': () => new Chart(canvas('fig5-coll'), {
      type: 'line',
      data: { datasets: D.figure5.collective.map((s, i) => ({ label: s.label, data: s.points.map((p) => ({ x: p[0], y: p[1] })),
        borderColor: color(i), backgroundColor: color(i) })) },
      options: { plugins: { title: title('Collective slowdown vs CUs assigned (Fig. 5b,c)') },
        scales: { x: axis('CUs assigned', { type: 'logarithmic' }), y: axis('time / time with default CUs') } },
    }),
    'speedup': () => new Chart(canvas('speedup'), {
      type: 'bar',
      data: { labels: D.speedup.scenarios, datasets: [
        { type: 'line', label: 'ideal', data: D.speedup.ideal, borderColor: '#000', backgroundColor: '#000', showLine: false,
          pointStyle: 'line', pointRadius: 8, pointBorderWidth: 3 },
      ].concat(D.speedup.policies.map((p, i) => ({ label: p, data: D.speedup.realized[p], backgroundColor: color(i) }))) },
      options: { plugins: { title: title('Ideal vs realized C3 speedup over serial, per scenario and policy') },
        scales: { x: axis('scenario', { ticks: { autoSkip: false, maxRotation: 90, minRotation: 60 } }),
          y: axis('speedup over serial', { min: 0.6 }) } },
    }),
    'taxonomy': () => new Chart(canvas('taxonomy'), {
      type: 'bar',
      data: { labels: D.taxonomy.classes, datasets: D.taxonomy.policies.map((p, i) => ({ label: p, data: D.taxonomy.percent[p],
        backgroundColor: color(i) })) },
      options: { plugins: { title: title('Percent of ideal speedup by taxonomy class (mean over scenarios)') },
        scales: { x: axis('taxonomy (from isolated times)'), y: axis('% of ideal') } },
    }),
    'attr-gemm': () => attribution('attr-gemm', 'gemm', 'GEMM'),
    'attr-coll': () => attribution('attr-coll', 'collective', 'collective'),
    'prog-attr-gemm': () => attribution('prog-attr-gemm', 'gemm', 'Program GEMMs\'', D.program_attribution, 'sum over kernels, mean over programs'),
    'prog-attr-other': () => attribution('prog-attr-other', 'collective', 'Program collectives\' and other kernels\'',
      D.program_attribution, 'sum over kernels, mean over programs'),
    'scatter': () => {
      const groups = Object.keys(D.scatter);
      let lo = Infinity, hi = 0;
      groups.forEach((g) => D.scatter[g].forEach((p) => { lo = Math.min(lo, p.measured, p.predicted); hi = Math.max(hi, p.measured, p.predicted); }));
      return new Chart(canvas('scatter'), {
        type: 'scatter',
        data: { datasets: groups.map((g, i) => ({ label: g, data: D.scatter[g].map((p) => ({ x: p.measured, y: p.predicted, label: p.label })),
          backgroundColor: color(i) })).concat([{ type: 'line', label: 'predicted = measured', data: [{ x: lo, y: lo }, { x: hi, y: hi }],
          borderColor: '#888', borderDash: [4, 4], pointRadius: 0 }]) },
        options: { plugins: { title: title('Predicted vs measured time (us)'),
          tooltip: { callbacks: { label: (c) => (c.raw.label || '') + ' measured ' + c.raw.x.toFixed(1) + ', predicted ' + c.raw.y.toFixed(1) } } },
          scales: { x: axis('measured us', { type: 'logarithmic' }), y: axis('predicted us', { type: 'logarithmic' }) } },
      });
    },
    'sweep': () => new Chart(canvas('sweep'), {
      type: 'bar',
      data: { labels: D.sweep.variants, datasets: [
        { label: 'DMA offload wins', data: D.sweep.wins, backgroundColor: '#59a14f', stack: 'n', yAxisID: 'y' },
        { label: 'DMA offload loses', data: D.sweep.losses, backgroundColor: '#e15759', stack: 'n', yAxisID: 'y' },
        { type: 'line', label: 'mean DMA speedup / best CU-policy speedup', data: D.sweep.mean_ratio, borderColor: '#000',
          backgroundColor: '#000', yAxisID: 'ratio' },
      ] },
      options: { plugins: { title: title('Hardware what-if: scenarios where DMA offload beats the best CU policy, per variant') },
        scales: { x: axis('variant', { ticks: { autoSkip: false, maxRotation: 90, minRotation: 60 } }),
          y: axis('scenarios', { stacked: true }), ratio: axis('speedup ratio', { position: 'right', grid: { drawOnChartArea: false } }) } },
    }),
    'sweep-offload': () => sweep_offload(),
    'sweep-gain': () => sweep_gain(),
    'program-steps': () => program_steps(),
  };

  // Ratio bins of the heatmaps (x; > 1 = faster): white within 1% either way, red slower, green
  // faster, darker the further from 1. Fixed, so two pages (or two charts) read alike.
  const bins = [
    { below: 0.5, color: '#b2182b', label: '< 0.5' },
    { below: 0.8, color: '#d6604d', label: '0.5-0.8' },
    { below: 0.95, color: '#f4a582', label: '0.8-0.95' },
    { below: 0.99, color: '#fddbc7', label: '0.95-0.99' },
    { below: 1.01, color: '#f7f7f7', label: '0.99-1.01' },
    { below: 1.05, color: '#d9f0d3', label: '1.01-1.05' },
    { below: 1.25, color: '#a6dba0', label: '1.05-1.25' },
    { below: 2, color: '#5aae61', label: '1.25-2' },
    { below: Infinity, color: '#1b7837', label: '>= 2' },
  ];
  const dark = (b) => b === bins[0] || b === bins[1] || b === bins[7] || b === bins[8];
  const bin_of = (v) => bins.find((b) => v < b.below);
  const font = (px, bold) => (bold ? 'bold ' : '') + px + 'px system-ui, sans-serif';

  // Splits text into lines no wider than `width` at the context's current font.
  function wrap(ctx, text, width) {
    const lines = [];
    let line = '';
    text.split(' ').forEach((w) => {
      const next = line ? line + ' ' + w : w;
      if (line && ctx.measureText(next).width > width) { lines.push(line); line = w; } else line = next;
    });
    if (line) lines.push(line);
    return lines;
  }

  // A variant x column grid of ratios drawn on the canvas (Chart.js has no heatmap), sized to the
  // grid. `spec.value(i, j)` gives row i, column j's ratio (or null), `spec.second_line(i, j)` an
  // optional second line of text, `spec.row_label(r, i)` an optional new name for a row.
  function heatmap(id, h, spec) {
    const c = canvas(id);
    let ctx = c.getContext('2d');
    const rows = h.rows.map((r, i) => (spec.row_label ? spec.row_label(r, i) : r));
    ctx.font = font(12);
    // Wide enough for the widest column label (values such as "20 us, 14").
    const widest = Math.max(...h.columns.map((col) => ctx.measureText(col).width));
    const cellW = Math.max(spec.second_line ? 66 : 60, Math.ceil(widest) + 10), cellH = spec.second_line ? 32 : 20;
    const labelW = Math.ceil(Math.max(...rows.map((r) => ctx.measureText(r).width), 60)) + 14;
    const gridW = cellW * h.columns.length;
    const width = Math.max(labelW + gridW + 16, 9 * 64 + 100);
    ctx.font = font(14, true);
    const title = wrap(ctx, spec.title, width - 20);
    ctx.font = font(12);
    const subtitle = wrap(ctx, spec.subtitle, width - 20);
    const subtitleY = 14 + 18 * title.length;
    const top = subtitleY + 16 * subtitle.length + 40;
    const legendY = top + cellH * rows.length + 14;
    c.width = width;  // resizing clears the canvas and resets the context's state
    c.height = legendY + 52;
    ctx = c.getContext('2d');
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, c.width, c.height);
    ctx.textBaseline = 'middle';
    ctx.fillStyle = '#222';
    ctx.font = font(14, true);
    title.forEach((l, i) => ctx.fillText(l, 10, 14 + 18 * i));
    ctx.font = font(12);
    ctx.fillStyle = '#555';
    subtitle.forEach((l, i) => ctx.fillText(l, 10, subtitleY + 4 + 16 * i));
    // Column axis: its title, then one label per column; the row axis is named above its labels.
    ctx.fillStyle = '#222';
    ctx.textAlign = 'center';
    ctx.font = font(12, true);
    ctx.fillText(h.column_title, labelW + gridW / 2, top - 30);
    ctx.textAlign = 'left';
    ctx.fillText('variant', 6, top - 12);
    ctx.font = font(12);
    ctx.textAlign = 'center';
    h.columns.forEach((col, j) => ctx.fillText(col, labelW + cellW * (j + 0.5), top - 12));
    rows.forEach((r, i) => {
      const y = top + cellH * i;
      ctx.textAlign = 'right';
      ctx.fillStyle = '#222';
      ctx.font = font(12);
      ctx.fillText(r, labelW - 8, y + cellH / 2);
      h.columns.forEach((col, j) => {
        const x = labelW + cellW * j;
        const v = spec.value(i, j);
        const b = v === null ? null : bin_of(v);
        ctx.fillStyle = b ? b.color : '#e8e8e8';
        ctx.fillRect(x, y, cellW, cellH);
        ctx.strokeStyle = '#fff';
        ctx.strokeRect(x + 0.5, y + 0.5, cellW - 1, cellH - 1);
        ctx.textAlign = 'center';
        ctx.fillStyle = b && dark(b) ? '#fff' : '#222';
        if (v === null) {
          ctx.fillStyle = '#888';
          ctx.fillText('n/a', x + cellW / 2, y + cellH / 2);
          return;
        }
        const second = spec.second_line ? spec.second_line(i, j) : null;
        ctx.font = font(12);
        ctx.fillText(v.toFixed(3), x + cellW / 2, y + (second ? 11 : cellH / 2));
        if (second) {
          ctx.font = font(10);
          ctx.fillText(second, x + cellW / 2, y + 24);
        }
      });
    });
    // Legend: the bins, with what the ratio is.
    ctx.textAlign = 'left';
    ctx.fillStyle = '#222';
    ctx.font = font(12, true);
    ctx.fillText(spec.legend, 10, legendY + 8);
    ctx.font = font(11);
    bins.forEach((b, k) => {
      const x = 10 + 64 * k;
      ctx.fillStyle = b.color;
      ctx.fillRect(x, legendY + 20, 60, 14);
      ctx.strokeStyle = '#bbb';
      ctx.strokeRect(x + 0.5, legendY + 20.5, 59, 13);
      ctx.fillStyle = '#222';
      ctx.textAlign = 'center';
      ctx.fillText(b.label, x + 30, legendY + 44);
    });
  }

  function sweep_offload() {
    const h = D.sweep_heatmaps, o = h.offload;
    heatmap('sweep-offload', h, {
      title: 'DMA offload vs the best CU policy, per variant and ' + h.column_title,
      subtitle: 'Cell: geomean over scenarios of (best CU-policy C3 time / best copy-engine-policy C3 time), ' +
        'x; > 1: offload is faster. Second line: scenarios where offload is faster / scenarios compared.',
      value: (i, j) => o.ratio[i][j],
      second_line: (i, j) => o.wins[i][j] + '/' + o.scenarios[i][j],
      legend: 'best CU time / engine time (x)',
    });
  }

  function sweep_gain() {
    const h = D.sweep_heatmaps, g = h.gain;
    heatmap('sweep-gain', h, {
      title: 'What each variant buys DMA offload over ' + h.baseline + ', per ' + h.column_title,
      subtitle: 'Cell: geomean over scenarios of (' + h.baseline + ' best copy-engine-policy C3 time / the ' +
        "variant's, same " + h.column_title + '), x; > 1: the variant makes offload faster.',
      value: (i, j) => g.ratio[i][j],
      row_label: (r, i) => (i === 0 ? r + ' (baseline)' : r),
      legend: h.baseline + ' time / variant time (x)',
    });
  }

  // Step time in ms per group (variant) and policy, the ideal step as a tick. The axis starts near
  // the fastest step: the variants differ by percents, which a zero-based axis would hide.
  function program_steps() {
    const P = D.program_steps;
    const ms = (v) => (v === null ? null : v / 1000);
    const values = [];
    P.policies.forEach((p) => P.step_us[p].forEach((v) => { if (v !== null) values.push(v / 1000); }));
    P.ideal_us.forEach((v) => { if (v !== null) values.push(v / 1000); });
    const lo = Math.min.apply(null, values);
    return new Chart(canvas('program-steps'), {
      type: 'bar',
      data: { labels: P.groups, datasets: [
        { type: 'line', label: 'ideal (critical path, isolated kernels)', data: P.ideal_us.map(ms), borderColor: '#000',
          backgroundColor: '#000', showLine: false, pointStyle: 'line', pointRadius: 8, pointBorderWidth: 3 },
      ].concat(P.policies.map((p, i) => ({ label: p, data: P.step_us[p].map(ms), backgroundColor: color(i) }))) },
      options: { plugins: { title: title('Program step time per variant and policy (lower is faster)') },
        scales: { x: axis('variant', { ticks: { autoSkip: false, maxRotation: 90, minRotation: 60 } }),
          y: axis('step ms', { min: Math.floor(lo * 0.95) }) } },
    });
  }

  function attribution(id, kernel, name, source, over) {
    const a = source || D.attribution;
    return new Chart(canvas(id), {
      type: 'bar',
      data: { labels: a.policies, datasets: a.causes.map((c, i) => ({ label: c, data: a[kernel][c], backgroundColor: color(i) })) },
      options: { plugins: { title: title(name + ' slowdown attribution (' + (over || 'mean us over scenarios') + ')') },
        scales: { x: axis('policy', { stacked: true }), y: axis('slowdown us', { stacked: true }) } },
    });
  }

  // A canvas counts as drawn when some pixel is not transparent.
  function has_ink(c) {
    const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 3; i < px.length; i += 4) if (px[i] !== 0) return true;
    return false;
  }

  window.addEventListener('load', () => {
    let drawn = 0;
    const failed = [];
    D.charts.forEach((id) => {
      try {
        draw[id]();
        if (has_ink(canvas(id))) drawn++; else failed.push(id);
      } catch (e) {
        failed.push(id + ': ' + e.message);
      }
    });
    document.body.dataset.chartsExpected = String(D.charts.length);
    document.body.dataset.chartsDrawn = String(drawn);
    document.getElementById('chart-status').textContent =
      drawn + ' of ' + D.charts.length + ' charts drawn' + (failed.length ? '; failed: ' + failed.join(', ') : '');
  });
})();
