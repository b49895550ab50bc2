/* The judge card (an audit's page): a link under a figure shows the records behind it in the items table. */
  function showSelection(keys, what) {
    selection = {};
    keys.forEach(function (k) { selection[k] = true; });
    var box = document.getElementById("f-selection");
    document.getElementById("f-selection-text").textContent = "the items behind: " + what;
    box.hidden = false;
    renderRows();
    document.getElementById("items").scrollIntoView();
  }
  Array.prototype.forEach.call(document.querySelectorAll("a.items-link"), function (a) {
    a.addEventListener("click", function (e) {
      e.preventDefault();
      showSelection(JSON.parse(a.getAttribute("data-items")), a.getAttribute("data-what") || "");
    });
  });
  document.getElementById("f-selection-clear").addEventListener("click", function () {
    selection = null;
    document.getElementById("f-selection").hidden = true;
    renderRows();
  });
