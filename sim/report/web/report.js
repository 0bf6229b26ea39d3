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
  };

  function attribution(id, kernel, name) {
    const a = D.attribution;
    return new Chart(canvas(id), {
      type: 'bar',
      data: { labels: a.policies, datasets: a.causes.map((c, i) => ({ label: c, data: a[kernel][c], backgroundColor: color(i) })) },
      options: { plugins: { title: title(name + ' slowdown attribution (mean us over scenarios)') },
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
