// Draws the validation page's timelines (window.C3SIM_VALIDATION, written by c3sim validate
// --report): per program one canvas, the predicted timeline above the traced one on one shared
// time axis, a lane per rank and stream, kernels coloured by kind (the colours of the tables'
// swatches, from report.css). A canvas, not an element per kernel, so a step of thousands of
// kernels redraws in milliseconds on every zoom, pan and hover. When the page has loaded, the count
// of timelines with ink goes to <body data-timelines-drawn>, which the headless-browser test reads.
(function () {
  'use strict';
  const D = window.C3SIM_VALIDATION;
  const LABEL_W = 150, RIGHT = 12, LANE_H = 16, LANE_GAP = 3, TITLE_H = 22, LEGEND_H = 26, AXIS_H = 30;
  const KINDS = ['gemm', 'collective', 'memory', 'dma_copy', 'fused', 'measured'];
  const font = (px, bold) => (bold ? 'bold ' : '') + px + 'px system-ui, sans-serif';

  // The colour report.css gives kind's swatch: one place decides each kind's colour.
  const colors = {};
  KINDS.forEach((k) => {
    const probe = document.createElement('span');
    probe.className = 'swatch kind-' + k;
    document.body.appendChild(probe);
    colors[k] = getComputedStyle(probe).backgroundColor;
    probe.remove();
  });

  // Round tick spacing (1, 2 or 5 x 10^n) for about `count` ticks over `span`.
  function tick_step(span, count) {
    const raw = span / count, p = Math.pow(10, Math.floor(Math.log10(raw)));
    return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw);
  }
  const us = (v) => (Math.abs(v) >= 1000 ? (v / 1000).toFixed(3) + ' ms' : v.toFixed(1) + ' us');
  // A tick's label with the digits its spacing needs ("20 ms", "20.5 ms", "250 us", "0.25 us").
  function tick_label(t, step) {
    const in_ms = step >= 100, v = in_ms ? t / 1000 : t, s = in_ms ? step / 1000 : step;
    const digits = Math.max(0, -Math.floor(Math.log10(s) + 1e-9));
    return (Math.abs(v) < s / 1e6 ? 0 : v).toFixed(digits) + (in_ms ? ' ms' : ' us');
  }

  function timeline(P, index) {
    const canvas = document.getElementById('timeline-' + index);
    const tip = canvas.parentElement.querySelector('.tip');
    const rows = P.kernels;
    const traced = P.traced_starts;
    const multi_rank = P.lanes.some((l) => l.rank !== 0);
    let end = 0;
    rows.forEach((r) => {
      end = Math.max(end, r.predicted_start_us + r.predicted_us);
      if (traced) end = Math.max(end, r.traced_start_us + r.traced_us);
    });
    end = end > 0 ? end : 1;
    const full = [-0.005 * end, 1.005 * end];
    let view = full.slice();
    let hover = -1, selected = -1;
    const lanes_h = P.lanes.length * (LANE_H + LANE_GAP);
    // Panels: [top of its lanes, side].
    const panels = [
      { side: 'predicted', top: LEGEND_H + TITLE_H },
      { side: 'traced', top: LEGEND_H + TITLE_H + lanes_h + TITLE_H },
    ];
    const css_w = canvas.width, css_h = panels[1].top + (traced ? lanes_h : 0) + AXIS_H;
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(css_w * ratio);
    canvas.height = Math.round(css_h * ratio);
    canvas.style.width = css_w + 'px';
    canvas.style.height = css_h + 'px';
    const ctx = canvas.getContext('2d');
    const plot_w = css_w - LABEL_W - RIGHT;
    const x_of = (t) => LABEL_W + ((t - view[0]) / (view[1] - view[0])) * plot_w;
    const t_of = (x) => view[0] + ((x - LABEL_W) / plot_w) * (view[1] - view[0]);
    const start = (r, side) => (side === 'predicted' ? r.predicted_start_us : r.traced_start_us);
    const dur = (r, side) => (side === 'predicted' ? r.predicted_us : r.traced_us);

    // The kernels, lanes and axis of the current view go to an offscreen canvas once per view;
    // a hover only copies it back and outlines two rectangles.
    const base = document.createElement('canvas');
    base.width = canvas.width;
    base.height = canvas.height;
    let base_view = null;

    function draw() {
      if (!base_view || base_view[0] !== view[0] || base_view[1] !== view[1]) {
        draw_base(base.getContext('2d'));
        base_view = view.slice();
      }
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.drawImage(base, 0, 0);
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      draw_highlights();
    }

    function draw_base(ctx) {
      ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, css_w, css_h);
      ctx.textBaseline = 'middle';
      // Legend: the kinds present.
      ctx.font = font(12);
      let lx = LABEL_W;
      KINDS.filter((k) => P.kinds.some((s) => s.kind === k)).forEach((k) => {
        ctx.fillStyle = colors[k];
        ctx.fillRect(lx, 6, 14, 12);
        ctx.fillStyle = '#222';
        ctx.textAlign = 'left';
        ctx.fillText(k, lx + 18, 12);
        lx += 28 + ctx.measureText(k).width;
      });
      const step = tick_step(view[1] - view[0], 10);
      const bottom = panels[1].top + (traced ? lanes_h : 0);
      // Grid lines through both panels, labels on the axis below.
      ctx.strokeStyle = '#eee';
      ctx.lineWidth = 1;
      ctx.fillStyle = '#444';
      ctx.textAlign = 'center';
      ctx.font = font(11);
      for (let t = Math.ceil(view[0] / step) * step; t <= view[1]; t += step) {
        const x = Math.round(x_of(t)) + 0.5;
        ctx.beginPath();
        ctx.moveTo(x, panels[0].top - 4);
        ctx.lineTo(x, bottom + 4);
        ctx.stroke();
        const label = tick_label(t, step), w = ctx.measureText(label).width;
        ctx.fillText(label, Math.min(x, css_w - 2 - w / 2), bottom + 14);
      }
      ctx.font = font(11, true);
      ctx.fillText('time from the first kernel of the rank', LABEL_W + plot_w / 2, bottom + 27);
      panels.forEach((panel) => {
        ctx.textAlign = 'left';
        ctx.fillStyle = '#222';
        ctx.font = font(13, true);
        const title = panel.side === 'predicted' ? 'Predicted (c3sim, ' + P.policy + ' on ' + P.hardware + ')'
          : traced ? 'Traced' : 'Traced: no start times in the program (traced_start_us); durations are in the tables';
        ctx.fillText(title, 6, panel.top - TITLE_H / 2);
        if (panel.side === 'traced' && !traced) return;
        P.lanes.forEach((lane, li) => {
          const y = panel.top + li * (LANE_H + LANE_GAP);
          ctx.fillStyle = li % 2 ? '#fafafa' : '#f3f3f3';
          ctx.fillRect(LABEL_W, y, plot_w, LANE_H);
          if (li > 0 && lane.rank !== P.lanes[li - 1].rank) {  // a rule between ranks
            ctx.fillStyle = '#999';
            ctx.fillRect(6, y - LANE_GAP / 2 - 0.5, css_w - RIGHT - 6, 1);
          }
          ctx.fillStyle = '#333';
          ctx.font = font(11);
          ctx.textAlign = 'right';
          ctx.fillText((multi_rank ? 'rank ' + lane.rank + ' ' : '') + lane.stream, LABEL_W - 6, y + LANE_H / 2);
          ctx.save();
          ctx.beginPath();
          ctx.rect(LABEL_W, y, plot_w, LANE_H);
          ctx.clip();
          lane.kernels.forEach((i) => {
            const r = rows[i], s = start(r, panel.side), e = s + dur(r, panel.side);
            if (e < view[0] || s > view[1]) return;
            const x0 = x_of(s), x1 = x_of(e);
            ctx.fillStyle = colors[r.kind] || '#999';
            ctx.fillRect(x0, y + 1, Math.max(1, x1 - x0), LANE_H - 2);
          });
          ctx.restore();
        });
      });
    }

    // The hovered and the selected kernel, outlined in both panels.
    function draw_highlights() {
      [[selected, '#c00'], [hover, '#000']].forEach(([i, color]) => {
        if (i < 0) return;
        const r = rows[i], li = lane_index[i];
        panels.forEach((panel) => {
          if (panel.side === 'traced' && !traced) return;
          const y = panel.top + li * (LANE_H + LANE_GAP);
          const x0 = Math.max(LABEL_W - 2, x_of(start(r, panel.side)));
          const x1 = Math.min(css_w - RIGHT + 2, x_of(start(r, panel.side) + dur(r, panel.side)));
          if (x1 < LABEL_W || x0 > css_w - RIGHT) return;
          ctx.strokeStyle = color;
          ctx.lineWidth = 2;
          ctx.strokeRect(x0 - 1, y - 1, Math.max(2, x1 - x0) + 2, LANE_H + 2);
        });
      });
    }

    const lane_index = new Array(rows.length).fill(0);
    P.lanes.forEach((lane, li) => lane.kernels.forEach((i) => { lane_index[i] = li; }));

    // The kernel under (x, y): the lane from y, then the kernel whose span is nearest x (within 3 px).
    function kernel_at(x, y) {
      for (const panel of panels) {
        if (panel.side === 'traced' && !traced) continue;
        const li = Math.floor((y - panel.top) / (LANE_H + LANE_GAP));
        if (li < 0 || li >= P.lanes.length || y - panel.top - li * (LANE_H + LANE_GAP) > LANE_H) continue;
        const t = t_of(x), slack = (3 * (view[1] - view[0])) / plot_w;
        let best = -1, best_d = slack;
        P.lanes[li].kernels.forEach((i) => {
          const s = start(rows[i], panel.side), e = s + dur(rows[i], panel.side);
          const d = t < s ? s - t : t > e ? t - e : 0;
          if (d <= best_d) { best = i; best_d = d; }
        });
        return best;
      }
      return -1;
    }

    function show_tip(i, x, y) {
      if (i < 0) { tip.hidden = true; return; }
      const r = rows[i];
      const lines = [
        '<b>' + esc(r.kernel) + '</b>' + (multi_rank ? ' (rank ' + r.rank + ')' : '') + ' on ' + esc(r.stream),
        esc(r.kind) + (r.what ? ': ' + esc(r.what) : ''),
        'predicted: start ' + us(r.predicted_start_us) + ', duration ' + us(r.predicted_us),
        'traced: ' + (traced ? 'start ' + us(r.traced_start_us) + ', ' : '') + 'duration ' + us(r.traced_us),
        'error ' + (r.pct_error >= 0 ? '+' : '') + r.pct_error.toFixed(2) + '%' +
          (r.kind === 'measured' ? ' (traced time copied in)' : ''),
      ];
      tip.innerHTML = lines.join('<br>');
      tip.hidden = false;
      const left = Math.min(x + 14, css_w - tip.offsetWidth - 4);
      tip.style.left = Math.max(0, left) + 'px';
      tip.style.top = (y + 16) + 'px';
    }

    function zoom_to(a, b) {
      const span = Math.max(b - a, 0.05);
      view = [a, a + span];
      draw();
    }

    const section = document.getElementById('program-' + index);
    let drag = null;
    canvas.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      const x = Math.min(Math.max(ev.offsetX, LABEL_W), LABEL_W + plot_w), t = t_of(x);
      const f = Math.exp(Math.max(-1, Math.min(1, ev.deltaY * 0.002)));
      const span = Math.min(full[1] - full[0], Math.max(0.05, (view[1] - view[0]) * f));
      const a = t - ((x - LABEL_W) / plot_w) * span;
      zoom_to(a, a + span);
    }, { passive: false });
    let dragged = false;  // the last press moved the view: its click selects nothing
    canvas.addEventListener('mousedown', (ev) => {
      drag = { x: ev.offsetX, view: view.slice() };
      dragged = false;
    });
    window.addEventListener('mouseup', () => { drag = null; });
    // A click (no drag) on a kernel keeps it outlined in both timelines; on empty space, clears it.
    canvas.addEventListener('click', (ev) => {
      if (dragged) return;
      selected = kernel_at(ev.offsetX, ev.offsetY);
      section.querySelectorAll('table.worst tr[data-row]').forEach((tr) => {
        tr.classList.toggle('selected', Number(tr.dataset.row) === selected);
      });
      draw();
    });
    canvas.addEventListener('mousemove', (ev) => {
      if (drag && (dragged || Math.abs(ev.offsetX - drag.x) > 2)) {
        dragged = true;
        const dt = ((ev.offsetX - drag.x) / plot_w) * (drag.view[1] - drag.view[0]);
        view = [drag.view[0] - dt, drag.view[1] - dt];
        tip.hidden = true;
        draw();
        return;
      }
      const i = kernel_at(ev.offsetX, ev.offsetY);
      if (i !== hover) { hover = i; draw(); }
      show_tip(i, ev.offsetX, ev.offsetY);
    });
    canvas.addEventListener('mouseleave', () => { hover = -1; tip.hidden = true; draw(); });
    canvas.addEventListener('dblclick', () => { view = full.slice(); draw(); });

    // A worst kernel's row: select it and zoom both timelines to it with its span on each side.
    section.querySelectorAll('table.worst tr[data-row]').forEach((tr) => {
      tr.addEventListener('click', () => {
        const i = Number(tr.dataset.row), r = rows[i];
        let a = r.predicted_start_us, b = a + r.predicted_us;
        if (traced) { a = Math.min(a, r.traced_start_us); b = Math.max(b, r.traced_start_us + r.traced_us); }
        const pad = Math.max(b - a, 1);
        selected = i;
        section.querySelectorAll('tr.selected').forEach((s) => s.classList.remove('selected'));
        tr.classList.add('selected');
        zoom_to(a - pad, b + pad);
        canvas.scrollIntoView({ block: 'center' });
      });
    });
    draw();
    return canvas;
  }

  function esc(s) {
    return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  }

  // A canvas counts as drawn when some kernel's colour is on it.
  function has_ink(c) {
    const px = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    for (let i = 0; i < px.length; i += 4) if (px[i] !== px[i + 1] || px[i + 1] !== px[i + 2]) return true;
    return false;
  }

  window.addEventListener('load', () => {
    let drawn = 0;
    const failed = [];
    D.programs.forEach((P, i) => {
      try {
        if (has_ink(timeline(P, i))) drawn++; else failed.push(P.program);
      } catch (e) {
        failed.push(P.program + ': ' + e.message);
      }
    });
    document.body.dataset.timelinesExpected = String(D.programs.length);
    document.body.dataset.timelinesDrawn = String(drawn);
    document.getElementById('chart-status').textContent = drawn + ' of ' + D.programs.length +
      ' timelines drawn' + (failed.length ? '; failed: ' + failed.join(', ') : '');
  });
})();
