(() => {
  const panel = document.getElementById("panel");
  const body = panel.querySelector(".panel-body");
  const most = 30;
  function open(g) {
    const ids = (g.dataset.cards || "").split(" ").filter(Boolean);
    body.replaceChildren();
    for (const id of ids.slice(0, most)) {
      const card = document.getElementById(id);
      if (!card) continue;
      const copy = card.cloneNode(true);
      copy.removeAttribute("id");
      body.append(copy);
    }
    if (ids.length > most) {
      const more = document.createElement("p");
      more.textContent = `and ${ids.length - most} more in the list of states below`;
      body.append(more);
    }
    for (const n of document.querySelectorAll("g.node.chosen")) n.classList.remove("chosen");
    g.classList.add("chosen");
    panel.hidden = false;
  }
  for (const g of document.querySelectorAll("svg.graph g.node[data-cards]")) {
    g.addEventListener("click", (e) => { e.preventDefault(); open(g); });
    g.addEventListener("keydown", (e) => {
      if (e.key === "Enter") { e.preventDefault(); open(g); }
    });
  }
  const zoom = document.getElementById("zoom");
  const svg = document.querySelector("svg.graph");
  if (zoom && svg) {
    zoom.hidden = false;
    zoom.addEventListener("click", () => {
      const actual = !svg.style.width;
      svg.style.width = actual ? `${svg.dataset.width}px` : "";
      svg.style.maxWidth = actual ? "none" : `${svg.dataset.width}px`;
      zoom.textContent = actual ? "Fit to the window" : "Actual size";
    });
  }
  panel.querySelector("button").addEventListener("click", () => { panel.hidden = true; });
  document.addEventListener("keydown", (e) => { if (e.key === "Escape") panel.hidden = true; });
})();
