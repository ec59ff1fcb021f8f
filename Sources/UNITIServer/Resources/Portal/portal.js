// The portal's only script, loaded as a file (the Content-Security-Policy allows no inline
// script or event handler). Every page works without it: the server applies showIf and checks
// every answer on each post. With it, questionnaire forms
//  - tell the server the browser's UTC offset (answer times keep the person's local time),
//    and on every page its time zone (a cookie; health-record times are in it),
//  - show a slider once JavaScript can move it, with its value live, and send nothing until it
//    was moved (the number field beside it is what is posted, and it stays empty until then),
//  - show and hide items by their showIf as the person answers.
(function () {
  "use strict";

  function each(selector, action, root) {
    Array.prototype.forEach.call((root || document).querySelectorAll(selector), action);
  }

  var offset = String(-new Date().getTimezoneOffset());
  each("input[data-utc-offset]", function (field) { field.value = offset; });

  // The browser's time zone, kept in a cookie for the server: record times are typed and shown
  // in the person's zone, not the server's.
  try {
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (zone && document.cookie.split("; ").indexOf("uniti_zone=" + encodeURIComponent(zone)) < 0) {
      document.cookie = "uniti_zone=" + encodeURIComponent(zone) + "; path=/; max-age=31536000; SameSite=Lax";
    }
  } catch (ignored) { /* no Intl: the server's zone is used */ }

  // Sliders: the range has no name; moving it writes the number field, which is posted.
  each("input.slider[data-for]", function (range) {
    var field = document.getElementById(range.getAttribute("data-for"));
    var shown = document.getElementById(range.getAttribute("data-for") + "-shown");
    if (!field || !shown) { return; }
    var unit = shown.getAttribute("data-unit") || "";
    // The value as the page's language writes numbers (28,5 in German); the field keeps the point.
    var decimal = shown.getAttribute("data-decimal") || ".";
    function show(value) {
      var untouched = value === "";
      shown.textContent = untouched ? shown.getAttribute("data-empty") : String(value).replace(".", decimal) + (unit ? " " + unit : "");
      shown.classList.toggle("untouched", untouched);
      range.classList.toggle("untouched", untouched);
    }
    range.hidden = false;
    if (field.value !== "") { range.value = field.value; }
    show(field.value);
    range.addEventListener("input", function () {
      field.value = range.value;
      show(range.value);
      field.dispatchEvent(new Event("change", { bubbles: true }));
    });
    field.addEventListener("input", function () {
      if (field.value !== "") { range.value = field.value; }
      show(field.value);
    });
  });

  // showIf: an item shows when the item it names is shown and answered with one of its values.
  function answer(field) {
    var radios = document.querySelectorAll("input[type=radio][name='" + field + "']");
    if (radios.length) {
      var checked = document.querySelector("input[type=radio][name='" + field + "']:checked");
      return checked && checked.value !== "" ? Number(checked.value) : null;
    }
    var boxes = document.querySelectorAll("#item-" + field + " input[type=checkbox]");
    if (boxes.length) {
      var selected = [];
      each("#item-" + field + " input[type=checkbox]:checked", function (box) { selected.push(Number(box.getAttribute("data-value"))); });
      return selected.length ? selected : null;
    }
    var input = document.getElementById(field);
    if (!input || input.value === "") { return null; }
    return input.type === "number" ? Number(input.value.replace(",", ".")) : input.value;
  }

  function matches(value, values) {
    if (value === null) { return false; }
    return values.some(function (wanted) {
      return Array.isArray(value) ? value.indexOf(wanted) >= 0 : value === wanted;
    });
  }

  function applyConditions() {
    var visible = {};
    each(".questionnaire .item", function (item) {
      var field = item.id.replace(/^item-/, "");
      var rule = item.getAttribute("data-show-if");
      var shown = true;
      if (rule) {
        try {
          var condition = JSON.parse(rule);
          shown = visible[condition.field] !== false && matches(answer(condition.field), condition.values);
        } catch (error) {
          shown = true;
        }
      }
      item.hidden = !shown;
      visible[field] = shown;
    });
  }

  each("form.questionnaire", function (form) {
    form.addEventListener("change", applyConditions);
    form.addEventListener("input", applyConditions);
  });
  applyConditions();
})();
